import TideCore

/// The prompt states of one scope of a ``CacheStore``: those of one model file under one setup.
struct ScopedPromptStates: PromptStateStore {
    let store: CacheStore
    /// The model file's digest and the setup that decides its states (the simulated machine,
    /// the context's options).
    let scope: String

    func longestPrefix(of tokens: [Int32]) -> KeptPromptState? {
        store.longestPrefix(of: tokens, scope: scope)
    }

    func keep(_ state: [UInt8], tokens: [Int32]) {
        store.keep(state, tokens: tokens, scope: scope)
    }
}
