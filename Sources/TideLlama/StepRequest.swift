import TideCore

/// Tokens of one sequence to decode, and what to do once the last one is.
final class StepRequest: @unchecked Sendable {
    // Created by a decoder, then used only on the scheduler thread until completed.
    let sequence: Int32
    /// The tokens not yet decoded.
    private(set) var tokens: ArraySlice<Int32>
    /// The position of the first of them.
    private(set) var position: Int
    /// Where this request started writing the sequence (what a failure trims back to).
    private(set) var startPosition: Int
    /// The seconds of the steps that left it waiting (part of it decoded, or none).
    private(set) var waitedSeconds = 0.0
    /// How many of the last tokens keep their logits (each a batch entry of its own, in order,
    /// the last one's index given to `finish`); more than one only for a request that fits in a batch.
    let outputs: Int
    /// How llama.cpp chooses the token in its graph, copying less than the scores
    /// (``LlamaBatchEngine/sampleOnBackend(_:_:)``); `nil` when the scores are copied. Only for a
    /// request of one output.
    let graphChoice: GraphChoice?
    /// Runs once on the scheduler thread before the first tokens are added (trims the cache).
    private var preparation: ((OpaquePointer, StepRequest) -> Void)?
    private let onAdvance: (ArraySlice<Int32>) -> Void
    private let onFailure: (OpaquePointer, Int) -> Void
    private let finish: (_ context: OpaquePointer, _ logitsIndex: Int32, _ decodeSeconds: Double) throws -> DecodedToken
    private let resume: (Result<DecodedToken, any Error>) -> Void

    init(sequence: Int32, tokens: ArraySlice<Int32>, position: Int, outputs: Int = 1, graphChoice: GraphChoice? = nil,
         preparation: ((OpaquePointer, StepRequest) -> Void)? = nil,
         onAdvance: @escaping (ArraySlice<Int32>) -> Void, onFailure: @escaping (OpaquePointer, Int) -> Void,
         finish: @escaping (_ context: OpaquePointer, _ logitsIndex: Int32, _ decodeSeconds: Double) throws -> DecodedToken,
         resume: @escaping (Result<DecodedToken, any Error>) -> Void)
    {
        precondition(!tokens.isEmpty, "a step request has a token to decode")
        self.sequence = sequence
        self.tokens = tokens
        self.position = position
        startPosition = position
        self.outputs = outputs
        self.graphChoice = outputs == 1 ? graphChoice : nil
        self.preparation = preparation
        self.onAdvance = onAdvance
        self.onFailure = onFailure
        self.finish = finish
        self.resume = resume
    }

    func prepare(_ context: OpaquePointer) {
        guard let preparation else { return }
        self.preparation = nil
        preparation(context, self)
    }

    /// Starts over from `position` with `tokens` (when the cached prefix could not be kept).
    func restart(with tokens: ArraySlice<Int32>, at position: Int) {
        self.tokens = tokens
        self.position = position
        startPosition = position
    }

    /// Counts a step of `seconds` that did not complete it.
    func waited(_ seconds: Double) {
        waitedSeconds += seconds
    }

    func advance(by count: Int) {
        onAdvance(tokens.prefix(count))
        tokens = tokens.dropFirst(count)
        position += count
    }

    /// Runs `finish` on the scores of batch entry `logitsIndex`, the request's decodes having taken
    /// `decodeSeconds` (with the steps it waited through), and resumes the decoder with what it gave.
    func complete(_ context: OpaquePointer, _ logitsIndex: Int32, decodeSeconds: Double) {
        resume(Result { try finish(context, logitsIndex, decodeSeconds) })
    }

    func fail(_ context: OpaquePointer, _ error: any Error) {
        onFailure(context, startPosition)
        resume(.failure(error))
    }
}
