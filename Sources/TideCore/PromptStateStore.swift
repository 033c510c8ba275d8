/// Where the model's state after a long prompt (its KV cache) is kept between processes, so that
/// a later prompt that starts the same way loads that state instead of evaluating its start again
/// (`tide run`'s cache; `tide serve --prompt-cache`). One store holds the states of one model
/// under one setup: whoever makes it fixes that scope.
///
/// A store answers from the engine's thread, between decoding steps: it must not wait on anything
/// else, and must not throw — a state it cannot read or write is one it does not have.
public protocol PromptStateStore: Sendable {
    /// The kept state that shares the longest start with `tokens`; `nil` for none.
    func longestPrefix(of tokens: [Int32]) -> KeptPromptState?
    /// Keeps `state`, the state of a sequence holding exactly `tokens`.
    func keep(_ state: [UInt8], tokens: [Int32])
}

/// A model's state after a prompt, as a ``PromptStateStore`` gives it back.
public struct KeptPromptState: Sendable, Hashable {
    /// The prompt it holds, whose start the prompt it was looked up for shares.
    public var tokens: [Int32]
    /// How many of those tokens start the prompt it was looked up for.
    public var sharedCount: Int
    /// The state, as the backend wrote it.
    public var state: [UInt8]

    /// A kept state.
    public init(tokens: [Int32], sharedCount: Int, state: [UInt8]) {
        self.tokens = tokens
        self.sharedCount = sharedCount
        self.state = state
    }
}
