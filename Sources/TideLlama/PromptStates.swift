import CLlama
import TideCore

/// A sequence's state after a long prompt, kept in a ``PromptStateStore`` and loaded again: a
/// prompt that starts the same way as one evaluated before (in this process or an earlier one)
/// loads the state of that start instead of evaluating it, and evaluates only the rest.
///
/// Only prompts that cost something to evaluate are kept or looked up: those with at least
/// ``minimumTokens`` tokens to evaluate. A state that does not load (another model's, a damaged
/// one the store did not catch) is not used: the prompt is evaluated whole.
enum PromptStates {
    /// The fewest tokens a prompt must leave to evaluate for its state to be kept, or looked up:
    /// below that, evaluating them costs less than keeping and loading a state.
    static let minimumTokens = 256

    /// Loads into `sequence` the state `store` keeps that shares the longest start with `prompt`,
    /// when it shares more than the `reused` tokens the sequence holds already, and cuts it to
    /// that start. Returns the prompt's tokens the sequence holds after (at most all but the last,
    /// which is evaluated for its scores).
    static func restore(_ prompt: [Int32], reused: Int, into sequence: inout SequenceCache, store: any PromptStateStore,
                        in context: OpaquePointer) -> Int {
        guard prompt.count - reused >= minimumTokens, let found = store.longestPrefix(of: prompt),
              found.sharedCount > reused + minimumTokens / 2 else { return reused }
        sequence.clear(in: context)
        let read = found.state.withUnsafeBufferPointer { llama_state_seq_set_data(context, $0.baseAddress, $0.count, sequence.sequence) }
        guard read > 0 else {
            sequence.clear(in: context)
            return 0
        }
        sequence.tokens = found.tokens
        return sequence.reuseCommonPrefix(of: prompt, in: context)
    }

    /// Keeps the state of `sequence`, which holds exactly `prompt` now, in `store`, when `evaluated`
    /// of its tokens had to be evaluated.
    static func keep(_ prompt: [Int32], evaluated: Int, of sequence: Int32, store: any PromptStateStore, in context: OpaquePointer) {
        guard evaluated >= minimumTokens else { return }
        let size = llama_state_seq_get_size(context, sequence)
        guard size > 0 else { return }
        var state = [UInt8](repeating: 0, count: size)
        let written = state.withUnsafeMutableBufferPointer { llama_state_seq_get_data(context, $0.baseAddress, size, sequence) }
        guard written == size else { return }
        store.keep(state, tokens: prompt)
    }
}
