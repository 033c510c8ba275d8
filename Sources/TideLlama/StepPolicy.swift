/// Something a reply's sampler does at each step besides choosing the token: keep a rewind point,
/// choose an expected token within the tolerance, read the log-probabilities, steer a format to
/// finish within its budget. ``ReplySampler`` lists its policies in one place and calls each at
/// the same moments of every step; a new per-step behaviour is a policy and a line there.
protocol StepPolicy: AnyObject {
    /// Whether the next step must read its row of scores, so that llama.cpp's graph may not
    /// choose its token (``ReplySampler/graphChoice``).
    var readsScores: Bool { get }
    /// A step begins from `scores`, before the hooks adjust them; `isNewPosition` is false when
    /// a rewound position is sampled again from its saved scores.
    func stepBegins(_ scores: UnsafeMutablePointer<Float>, isNewPosition: Bool)
    /// The hooks have adjusted `scores` and the token is about to be chosen from them; the
    /// policy may lower scores.
    func choosing(from scores: UnsafeMutablePointer<Float>, model: LlamaModel)
    /// `token` was chosen; `score` is its score after the hooks, before any raise within the tolerance.
    func chose(_ token: Int32, score: Float, model: LlamaModel)
}

extension StepPolicy {
    func stepBegins(_ scores: UnsafeMutablePointer<Float>, isNewPosition: Bool) {}
    func choosing(from scores: UnsafeMutablePointer<Float>, model: LlamaModel) {}
    func chose(_ token: Int32, score: Float, model: LlamaModel) {}
}
