import CLlama
import TideCore

/// The rewind points of a sampler chain: a copy of its state and of the scores at each reply
/// position, so that a position a hook took back is sampled again exactly as it was first
/// sampled, with no decode.
extension SamplerChain {
    /// Copies of the chain's and the grammar's states, to go back to.
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

    /// What sampling a reply position again needs: the scores the model gave it, before any
    /// hook, and the sampler's and the grammar's states before it was sampled.
    struct RewindPoint {
        let logits: [Float]
        let state: Snapshot
        let steerer: BudgetSteerer?
    }

    /// Puts the states of `snapshot` in place of the chain's and the grammar's; `false` (and
    /// nothing changed) when they cannot be copied.
    func restore(_ snapshot: Snapshot) -> Bool {
        guard let (restoredChain, restoredGrammar) = snapshot.copies() else { return false }
        llama_sampler_free(chain)
        chain = restoredChain
        if let grammar { llama_sampler_free(grammar) }
        grammar = restoredGrammar
        return true
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
        guard canRewind(to: position), restore(points[offset].state) else { return false }
        steerer = points[offset].steerer
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

    /// Whether the next step samples a rewound position again (and needs no decode).
    var isResampling: Bool { resampling != nil }

    /// Samples the rewound position again, from its saved scores.
    func resample(model: LlamaModel, adjustingLogits: ((any LogitsView) throws -> Void)?) throws -> DecodedToken {
        guard let point = resampling else { preconditionFailure("resample() follows rewind(to:)") }
        resampling = nil
        var logits = point.logits
        return try logits.withUnsafeMutableBufferPointer { buffer in
            try decide(buffer.baseAddress!, context: nil, at: 0, model: model, adjustingLogits: adjustingLogits)
        }
    }

}
