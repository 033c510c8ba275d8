/// Replies kept for reuse: a reply that is fully determined (greedy, or a fixed seed;
/// ``GenerationParameters/isReproducible``) is given again, without the model, to the same prompt
/// under the same parameters. What else decides a reply (the model file, the plugins and their
/// files, Tide's version) is the cache's scope, which whoever makes it fixes.
///
/// A ``ChatSession`` with a cache consults it for each reply it may keep: one whose hooks do not
/// read the model's scores (an `on_logits` hook would not see them on a reply given again). A
/// reply checked against a recording (teacher forcing) is kept with the recording in its key and
/// how far the recording held. Lookups and writes must not throw: a cache that cannot answer
/// misses.
public protocol ReplyCache: Sendable {
    /// The reply kept for `key`, or `nil`.
    func reply(for key: ReplyCacheKey) async -> CachedReply?
    /// Keeps `reply` for `key`.
    func store(_ reply: CachedReply, for key: ReplyCacheKey) async
}

/// What identifies one reply within a cache's scope: the prompt exactly as the model reads it
/// (``ChatBackend/promptFingerprint(for:rawPrompt:)``), every parameter, and the recording it is
/// checked against, if any.
public struct ReplyCacheKey: Sendable, Hashable {
    /// The prompt's fingerprint.
    public var prompt: [UInt8]
    /// The reply's parameters, after the prompt hooks.
    public var parameters: GenerationParameters
    /// The recorded reply teacher forcing checks; `nil` for a reply generated.
    public var forcing: String?

    /// A key.
    public init(prompt: [UInt8], parameters: GenerationParameters, forcing: String? = nil) {
        self.prompt = prompt
        self.parameters = parameters
        self.forcing = forcing
    }
}

/// A reply given again from a ``ReplyCache`` rather than generated.
public struct ReplyCacheHit: Sendable, Hashable, Codable {
    /// How long it took to make when it was generated, in seconds.
    public var seconds: Double

    /// A hit.
    public init(seconds: Double) {
        self.seconds = seconds
    }
}
