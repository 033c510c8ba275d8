import CLlama

extension SamplerChain {
    /// Copies of a chain's and its grammar's states, to go back to (a rewind point, or the state
    /// before a choice within the tolerance).
    final class Snapshot {
        private let sampler: UnsafeMutablePointer<llama_sampler>
        private let grammar: UnsafeMutablePointer<llama_sampler>?

        /// Copies of `chain` and `grammar`; `nil` when llama.cpp cannot copy them.
        init?(_ chain: UnsafeMutablePointer<llama_sampler>, grammar: UnsafeMutablePointer<llama_sampler>?) {
            guard let sampler = llama_sampler_clone(chain) else { return nil }
            let copy = grammar.flatMap { llama_sampler_clone($0) }
            if grammar != nil, copy == nil {
                llama_sampler_free(sampler)
                return nil
            }
            self.sampler = sampler
            self.grammar = copy
        }

        deinit {
            llama_sampler_free(sampler)
            if let grammar { llama_sampler_free(grammar) }
        }

        /// Fresh copies of the saved states, the snapshot staying as it is; `nil` when llama.cpp
        /// cannot copy them.
        func copies() -> (chain: UnsafeMutablePointer<llama_sampler>, grammar: UnsafeMutablePointer<llama_sampler>?)? {
            guard let chain = llama_sampler_clone(sampler) else { return nil }
            guard let grammar else { return (chain, nil) }
            guard let restored = llama_sampler_clone(grammar) else {
                llama_sampler_free(chain)
                return nil
            }
            return (chain, restored)
        }
    }
}
