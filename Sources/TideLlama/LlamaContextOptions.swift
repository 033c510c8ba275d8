import Foundation

/// How a llama.cpp context is sized and run.
public struct LlamaContextOptions: Sendable, Hashable {
    /// Tokens the context holds; `nil` picks the smaller of 4096 and the trained length.
    public var contextSize: Int?
    /// Threads for decoding and prompt evaluation; `nil` uses every core.
    public var threads: Int?
    /// The most prompt tokens evaluated in one `llama_decode` call.
    public var batchSize: Int = 512

    /// Options with every default.
    public init(contextSize: Int? = nil, threads: Int? = nil, batchSize: Int = 512) {
        self.contextSize = contextSize
        self.threads = threads
        self.batchSize = batchSize
    }

    /// The context size to use with a model trained on `trainedLength` tokens.
    func resolvedContextSize(trainedLength: Int) -> Int {
        contextSize ?? min(4096, trainedLength > 0 ? trainedLength : 4096)
    }

    /// The thread count to use.
    var resolvedThreads: Int { threads ?? ProcessInfo.processInfo.activeProcessorCount }
}
