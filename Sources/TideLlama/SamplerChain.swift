import CLlama
import TideCore

/// A llama.cpp sampler chain built from generation parameters, in llama.cpp's usual order:
/// repetition penalty, then greedy, or top-k → top-p → min-p → temperature → random draw.
///
/// When a hook may rewind, the chain keeps a ``RewindPoint`` per reply position (the scores
/// before hooks and its own state before sampling), so that a position can be sampled again
/// exactly as it was first sampled, with no decode.
final class SamplerChain {
    private var chain: UnsafeMutablePointer<llama_sampler>
    /// The rewind points of the positions from ``firstPoint`` on, while ``keepsPoints``.
    private var points: [RewindPoint] = []
    private var firstPoint = 0
    private var keepsPoints = false
    /// The point to sample again at the next step, after a rewind.
    private var resampling: RewindPoint?
    /// The most positions kept: a rewind reaches at most this many tokens back (each point holds
    /// a copy of the vocabulary's scores).
    static let maximumRewindPoints = 256
    /// Plain greedy decoding (no penalties), which needs only the best logit: llama.cpp's
    /// sampler would first copy the whole vocabulary into a candidate array.
    private let argmaxOnly: Bool
    private let vocabularySize: Int

    init(_ parameters: GenerationParameters, vocabularySize: Int) {
        argmaxOnly = parameters.temperature == 0 && parameters.repeatPenalty == 1
        self.vocabularySize = vocabularySize
        var chainParameters = llama_sampler_chain_default_params()
        chainParameters.no_perf = true
        chain = llama_sampler_chain_init(chainParameters)
        if parameters.repeatPenalty != 1 {
            add(llama_sampler_init_penalties(Int32(vocabularySize), Int32(parameters.repeatLastN),
                                             Float(parameters.repeatPenalty), 0, 0))
        }
        if parameters.temperature == 0 {
            add(llama_sampler_init_greedy())
            return
        }
        if parameters.topK > 0 { add(llama_sampler_init_top_k(Int32(parameters.topK))) }
        if parameters.topP < 1 { add(llama_sampler_init_top_p(Float(parameters.topP), 1)) }
        if parameters.minP > 0 { add(llama_sampler_init_min_p(Float(parameters.minP), 1)) }
        add(llama_sampler_init_temp(Float(parameters.temperature)))
        // llama.cpp draws a random seed for LLAMA_DEFAULT_SEED (0xFFFFFFFF).
        add(llama_sampler_init_dist(parameters.seed ?? UInt32.max))
    }

    deinit { llama_sampler_free(chain) }

    /// What sampling a reply position again needs: the scores the model gave it, before any
    /// hook, and a copy of the sampler's state before it was sampled.
    final class RewindPoint {
        let logits: [Float]
        let sampler: UnsafeMutablePointer<llama_sampler>

        init(logits: [Float], sampler: UnsafeMutablePointer<llama_sampler>) {
            self.logits = logits
            self.sampler = sampler
        }

        deinit { llama_sampler_free(sampler) }
    }

    /// Lets the repetition penalty see tokens that precede the reply (the prompt's tail).
    func accept(_ tokens: some Sequence<Int32>) {
        for token in tokens { llama_sampler_accept(chain, token) }
    }

    /// Keeps a rewind point at every position from now on.
    func keepRewindPoints() {
        keepsPoints = true
    }

    /// Goes back to reply position `position`: the sampler's state is what it was before that
    /// position was sampled, and the next step samples it again from its saved scores. Returns
    /// false when no point is kept for it.
    func rewind(to position: Int) -> Bool {
        let offset = position - firstPoint
        guard canRewind(to: position), let clone = llama_sampler_clone(points[offset].sampler) else { return false }
        llama_sampler_free(chain)
        chain = clone
        points.removeSubrange((offset + 1)...)
        resampling = points[offset]
        return true
    }

    /// Whether a point is kept for `position`.
    func canRewind(to position: Int) -> Bool {
        keepsPoints && position >= firstPoint && position - firstPoint < points.count
    }

    /// Forgets the rewind points of the positions before `position`.
    func forgetRewindPoints(before position: Int) {
        let count = min(max(position - firstPoint, 0), points.count)
        points.removeFirst(count)
        firstPoint += count
    }

    /// Samples (and accepts) a token from the logits of batch entry `index` (the last by default).
    func sample(_ context: OpaquePointer, at index: Int32 = -1) -> Int32 {
        guard argmaxOnly, let logits = llama_get_logits_ith(context, index) else {
            return llama_sampler_sample(chain, context, index)
        }
        return argmax(logits)
    }

    /// The token with the highest score.
    private func argmax(_ scores: UnsafePointer<Float>) -> Int32 {
        var best = 0
        for token in 1..<vocabularySize where scores[token] > scores[best] { best = token }
        return Int32(best)
    }

    /// One decoding step from the logits of batch entry `index`: the hooks' adjustments, then
    /// the sampled token, the model's end, or the end of the candidates when hooks banned them all.
    func step(_ context: OpaquePointer, at index: Int32 = -1, model: LlamaModel,
              adjustingLogits: ((any LogitsView) throws -> Void)?) throws -> DecodedToken
    {
        if isResampling { return try resample(model: model, adjustingLogits: adjustingLogits) }
        if keepsPoints {
            // Points stay aligned with positions: one that cannot be kept ends what rewinds can reach.
            if let logits = llama_get_logits_ith(context, index), let clone = llama_sampler_clone(chain) {
                points.append(RewindPoint(logits: Array(UnsafeBufferPointer(start: logits, count: vocabularySize)), sampler: clone))
                if points.count > Self.maximumRewindPoints { forgetRewindPoints(before: firstPoint + 1) }
            } else {
                forgetRewindPoints(before: firstPoint + points.count + 1)
            }
        }
        if let adjustingLogits, let logits = llama_get_logits_ith(context, index) {
            let view = LlamaLogitsView(logits: logits, model: model)
            try adjustingLogits(view)
            guard view.hasCandidates else { return .everyTokenBanned }
        }
        let token = sample(context, at: index)
        if model.isEndOfGeneration(token) { return .endOfGeneration }
        return .token(id: token, bytes: model.tokenBytes(token))
    }

    /// Whether the next step samples a rewound position again (and needs no decode).
    var isResampling: Bool { resampling != nil }

    /// Samples the rewound position again, from its saved scores.
    func resample(model: LlamaModel, adjustingLogits: ((any LogitsView) throws -> Void)?) throws -> DecodedToken {
        guard let point = resampling else { preconditionFailure("resample() follows rewind(to:)") }
        resampling = nil
        var logits = point.logits
        let token = try logits.withUnsafeMutableBufferPointer { buffer throws -> Int32? in
            let scores = buffer.baseAddress!
            if let adjustingLogits {
                let view = LlamaLogitsView(logits: scores, model: model)
                try adjustingLogits(view)
                guard view.hasCandidates else { return nil }
            }
            if argmaxOnly { return argmax(scores) }
            var candidates = (0..<vocabularySize).map { llama_token_data(id: Int32($0), logit: scores[$0], p: 0) }
            return candidates.withUnsafeMutableBufferPointer { data in
                var array = llama_token_data_array(data: data.baseAddress, size: data.count, selected: -1, sorted: false)
                llama_sampler_apply(chain, &array)
                let chosen = array.data[Int(array.selected)].id
                llama_sampler_accept(chain, chosen)
                return chosen
            }
        }
        guard let token else { return .everyTokenBanned }
        if model.isEndOfGeneration(token) { return .endOfGeneration }
        return .token(id: token, bytes: model.tokenBytes(token))
    }

    private func add(_ sampler: UnsafeMutablePointer<llama_sampler>?) {
        llama_sampler_chain_add(chain, sampler)
    }
}
