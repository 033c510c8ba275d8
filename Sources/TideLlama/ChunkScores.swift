import CLlama
import TideCore

/// The scores of the entries of a decode that kept several (a chunk of recorded tokens, or a
/// draft with the token before it), from which a reply samples its next positions one at a time,
/// with no decode between them.
///
/// In a context of one sequence nothing else decodes before they are used, so they are read where
/// llama.cpp left them; in a context shared with other sequences, whose steps come between two of
/// this reply's positions, they are copied out of the step that decoded them.
struct ChunkScores {
    /// Where the scores are read in place: entries `first ..< first + count` of the context's
    /// last decode; `nil` when they were copied.
    private var inContext: (context: OpaquePointer, first: Int32, count: Int)?
    /// One vocabulary of scores per entry, when they were copied.
    private var copies: [Float] = []
    private let vocabularySize: Int

    init(vocabularySize: Int) {
        self.vocabularySize = vocabularySize
    }

    /// Keeps the scores of the `count` batch entries up to `last`, just decoded in `context`:
    /// in place when `inPlace`, else copied.
    mutating func keep(_ context: OpaquePointer, last: Int32, count: Int, inPlace: Bool) {
        let first = last - Int32(count) + 1
        copies.removeAll(keepingCapacity: true)
        guard !inPlace else {
            inContext = (context, first, count)
            return
        }
        inContext = nil
        copies.reserveCapacity(count * vocabularySize)
        for index in first...last {
            guard let logits = llama_get_logits_ith(context, index) else {
                preconditionFailure("a decode of several scored entries keeps the logits of each of them")
            }
            copies.append(contentsOf: UnsafeBufferPointer(start: logits, count: vocabularySize))
        }
    }

    /// One decoding step of `sampler` from the scores of kept entry `index` (0 the first); the
    /// hooks adjust them in place.
    mutating func step(_ index: Int, sampler: ReplySampler, model: LlamaModel,
                       adjustingLogits: ((any LogitsView) throws -> Void)?) throws -> DecodedToken
    {
        if let (context, first, count) = inContext {
            precondition(index < count, "entry \(index) of a chunk of \(count)")
            return try sampler.step(context, at: first + Int32(index), model: model, adjustingLogits: adjustingLogits)
        }
        precondition((index + 1) * vocabularySize <= copies.count, "a step from a chunk's scores follows the decode that kept them")
        let offset = index * vocabularySize
        return try copies.withUnsafeMutableBufferPointer { scores in
            try sampler.step(scores.baseAddress! + offset, model: model, adjustingLogits: adjustingLogits)
        }
    }
}
