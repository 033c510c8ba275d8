import CLlama
import Foundation
import TideCore

/// How a llama.cpp context is sized and run.
public struct LlamaContextOptions: Sendable, Hashable {
    /// Tokens the context holds; `nil` picks the smaller of 4096 and the trained length.
    public var contextSize: Int?
    /// Threads for decoding and prompt evaluation, used by every decode; `nil` uses every core
    /// that the machine's other work leaves free, decided before each decode (``ThreadShare``).
    public var threads: Int?
    /// The most prompt tokens evaluated in one `llama_decode` call.
    public var batchSize: Int = 512
    /// Whether contexts use flash attention: on by default, since Tide's exact teacher forcing,
    /// drafting and parallel replay rest on it (``contextParameters(contextSize:sequences:)``);
    /// off, batches score otherwise than single tokens, and recordings are checked within the
    /// tolerance (``Tolerance``).
    public var flashAttention = true
    /// The machine whose scores and costs the context gives: this one, unless another is
    /// simulated (``SimulatedMachine``: the `tide` target passes the one `TIDE_MACHINE` names).
    public var machine: SimulatedMachine
    /// Whether, in an engine of several sequences, a long prompt is read beside the replies in
    /// progress a paced piece a step (``PrefillPace``, chunked prefill) rather than in batches of
    /// `batchSize` that stop them: for a server, whose clients must not stall one another. Its
    /// pieces may round otherwise than a sequential replay's batches, so `tide run --parallel`,
    /// which promises that replay's replies, leaves it off.
    public var chunkedPrefill = false
    /// How the KV cache stores keys (`--cache-type-k`): f16 unless asked otherwise.
    public var keyCacheType = KVCacheType.f16
    /// How the KV cache stores values (`--cache-type-v`): f16 unless asked otherwise. A quantized
    /// type needs flash attention, which ``contextParameters(contextSize:sequences:)`` then
    /// turns on whatever ``flashAttention`` says.
    public var valueCacheType = KVCacheType.f16

    /// Options with every default: on this machine, unless `machine` simulates another.
    public init(contextSize: Int? = nil, threads: Int? = nil, batchSize: Int = 512, machine: SimulatedMachine = SimulatedMachine()) {
        self.contextSize = contextSize
        self.threads = threads
        self.batchSize = batchSize
        self.machine = machine
    }

    /// The context size to use with a model trained on `trainedLength` tokens.
    func resolvedContextSize(trainedLength: Int) -> Int {
        contextSize ?? min(4096, trainedLength > 0 ? trainedLength : 4096)
    }

    /// The context size per sequence for `sequences` sequences on `model`, checked: a size beyond
    /// what the model was trained on (or, when the file does not say, beyond 2^20 tokens), or one
    /// whose cache would not fit in the machine's memory, is refused before llama.cpp allocates it.
    public func checkedContextSize(for model: LlamaModel, sequences: Int = 1) throws(LlamaError) -> Int {
        let trainedLength = model.facts.trainedContextLength
        let size = resolvedContextSize(trainedLength: trainedLength)
        guard size >= ModelDescription.contextSizes.lowerBound, sequences >= 1 else {
            throw .contextFailed(contextSize: size, detail: "a context needs at least \(ModelDescription.contextSizes.lowerBound) "
                + "tokens and one sequence (asked: \(sequences) of \(size))")
        }
        let largest = trainedLength > 0 ? trainedLength : 1 << 20
        guard size <= largest else { throw .contextTooLarge(requested: size, largest: largest, trained: trainedLength > 0) }
        let (total, overflow) = size.multipliedReportingOverflow(by: sequences)
        guard !overflow, total <= Int(Int32.max), sequences <= 1 << 16 else {
            throw .contextFailed(contextSize: size, detail: "\(sequences) sequences of \(size) tokens are more than llama.cpp can address")
        }
        // llama.cpp would allocate the cache and the kernel end the process when it is touched.
        let cache = model.kvCacheBytes(contextSize: size * sequences, key: keyCacheType, value: valueCacheType)
        let memory = Int64(clamping: ProcessInfo.processInfo.physicalMemory)
        guard cache < memory else {
            throw .contextFailed(contextSize: size * sequences, detail: "its cache would take \(cache >> 20) MiB, "
                + "more than this machine's \(memory >> 20) MiB of memory")
        }
        return size
    }

    /// llama.cpp's parameters for a context of `sequences` sequences of `contextSize` tokens in all.
    ///
    /// Flash attention is asked for, not left to llama.cpp's choice: with it, a batch of fewer
    /// than 64 tokens computes each token's scores exactly as a decode of that token alone does,
    /// which teacher forcing relies on (``TeacherForcer/chunkSize``); without it, any batch of two
    /// or more differs in the last bits, enough to change a greedy reply within a few dozen tokens.
    func contextParameters(contextSize: Int, sequences: Int) -> llama_context_params {
        var parameters = llama_context_default_params()
        parameters.n_ctx = UInt32(contextSize)
        parameters.n_batch = UInt32(max(resolvedBatchSize(contextSize: contextSize), sequences))
        parameters.n_ubatch = parameters.n_batch
        parameters.n_seq_max = UInt32(sequences)
        parameters.flash_attn_type = usesFlashAttention ? LLAMA_FLASH_ATTN_TYPE_ENABLED : LLAMA_FLASH_ATTN_TYPE_DISABLED
        parameters.type_k = keyCacheType.ggmlType
        parameters.type_v = valueCacheType.ggmlType
        parameters.n_threads = Int32(resolvedThreads)
        parameters.n_threads_batch = Int32(resolvedThreads)
        parameters.no_perf = true
        return parameters
    }

    /// Whether contexts use flash attention: as ``flashAttention`` says, and always with a
    /// quantized value cache, which llama.cpp stores only for flash attention.
    var usesFlashAttention: Bool { flashAttention || valueCacheType.isQuantized }

    /// How these options' contexts compute attention.
    public var kernel: AttentionKernel {
        AttentionKernel(flashAttention: usesFlashAttention, keyCache: keyCacheType, valueCache: valueCacheType)
    }

    /// The most prompt tokens per `llama_decode` call in a context of `contextSize` tokens.
    func resolvedBatchSize(contextSize: Int) -> Int { max(1, min(batchSize, contextSize)) }

    /// The machine's cores: more decoding threads than cores make every step wait for threads
    /// that are not running (docs/speed.md, "Sharing the cores").
    public static var coreCount: Int { ProcessInfo.processInfo.activeProcessorCount }

    /// The thread count to use: as asked, but never more than the machine's cores.
    var resolvedThreads: Int { min(threads ?? Self.coreCount, Self.coreCount) }

    /// The threads of a context of `model` with these options: as asked, or, without a count,
    /// as many as the machine leaves free, where the model computes the same on fewer threads.
    func threadShare(for model: LlamaModel) -> ThreadShare {
        let most = resolvedThreads
        let asked = threads != nil
        return ThreadShare(most: most) { [kernel] in
            !asked && model.batchFacts(threads: most, kernel: kernel).sameOnOneThread
        }
    }
}
