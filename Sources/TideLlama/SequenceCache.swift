import CLlama

/// The tokens one sequence holds in a context's KV cache, position by position, and the rule
/// for reusing them: keep the longest prefix a new prompt shares, drop the rest.
struct SequenceCache {
    /// The sequence id in the context.
    let sequence: Int32
    /// The tokens whose keys and values are cached.
    var tokens: [Int32] = []
    /// The window of a conversation longer than the context that ``tokens`` start (its kept
    /// tokens, then those after the dropped), or `nil` when they start the prompt itself.
    var window: ContextWindow?

    /// Keeps the longest cached prefix shared with `prompt` (leaving at least the last prompt
    /// token to evaluate, for its logits) and drops the rest. Returns how many tokens were kept.
    mutating func reuseCommonPrefix(of prompt: [Int32], in context: OpaquePointer) -> Int {
        var shared = zip(tokens, prompt).prefix { $0 == $1 }.count
        shared = min(shared, prompt.count - 1)
        let memory = llama_get_memory(context)
        if !llama_memory_seq_rm(memory, sequence, Int32(shared), -1) {
            // Some caches (recurrent or sliding-window) cannot drop a tail; start afresh.
            llama_memory_seq_rm(memory, sequence, 0, -1)
            shared = 0
        }
        tokens.removeSubrange(shared...)
        return shared
    }

    /// Holds what `source`, another sequence of the same context, holds: its cells are copied into
    /// this sequence (the whole of its part of the cache, at the next decode) and its tokens taken.
    mutating func copy(_ source: SequenceCache, in context: OpaquePointer) {
        let memory = llama_get_memory(context)
        llama_memory_seq_rm(memory, sequence, -1, -1)
        llama_memory_seq_cp(memory, source.sequence, sequence, -1, -1)
        tokens = source.tokens
        window = source.window
    }

    /// Forgets everything from `position` on (after a failed decode, or a rewind). Returns false
    /// when the cache could not drop that tail (some recurrent or sliding-window caches).
    @discardableResult
    mutating func truncate(to position: Int, in context: OpaquePointer) -> Bool {
        let dropped = llama_memory_seq_rm(llama_get_memory(context), sequence, Int32(position), -1)
        tokens.removeSubrange(min(position, tokens.count)...)
        return dropped
    }

    /// Forgets the whole sequence.
    mutating func clear(in context: OpaquePointer) {
        truncate(to: 0, in: context)
        window = nil
    }

    /// Drops the shift's tokens after its window's kept ones and moves those after them into
    /// their place, their keys re-rotated by llama.cpp before the next decode: what the cache
    /// holds becomes the start of the shift's resulting window. At most what is cached past the
    /// kept tokens goes. Returns the tokens it could not keep, to evaluate again: none, unless the
    /// cache could not drop a range (it then holds the kept tokens alone, or nothing).
    mutating func shift(_ shift: CacheShift, in context: OpaquePointer) -> [Int32] {
        let memory = llama_get_memory(context)
        let start = min(shift.held.kept, tokens.count)
        let end = min(shift.held.kept + shift.count, tokens.count)
        window = shift.result
        guard end > start else { return [] }
        guard llama_memory_seq_rm(memory, sequence, Int32(start), Int32(end)) else {
            let lost = shift.tokens(after: tokens)
            if !truncate(to: start, in: context) {
                llama_memory_seq_rm(memory, sequence, -1, -1)
                tokens = []
            }
            return Array(lost[tokens.count...])
        }
        llama_memory_seq_add(memory, sequence, Int32(end), -1, Int32(start - end))
        tokens.removeSubrange(start..<end)
        return []
    }
}
