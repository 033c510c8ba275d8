import CLlama
import Foundation
import Synchronization
import TideCore

/// One llama.cpp context shared by several conversations, each in a sequence of its own: the
/// pending tokens of every sequence are decoded together, one `llama_decode` per step
/// (continuous batching: a conversation that starts joins the running batch).
///
/// Each conversation gets a ``LlamaBackend`` on a sequence of its own from
/// ``makeBackend(template:endOfGenerationStrings:toolFormat:contextSize:)``; releasing the backend frees its
/// sequence. A backend made alone (``LlamaBackend/init(model:options:template:endOfGenerationStrings:toolFormat:)``)
/// is the one sequence of an engine of its own: one decoder serves both.
///
/// The engine's thread is also a task executor, and replies run on it: it runs every Swift job
/// that is ready, and decodes when none is — by then every reply in progress has queued its
/// next token, so steps are as full as they can be, and no other thread competes with
/// llama.cpp's for the cores.
///
/// ```swift
/// let engine = try LlamaBatchEngine(model: model, sequences: 8, options: LlamaContextOptions(contextSize: 2048))
/// let sessions = try (0..<8).map { _ in ChatSession(backend: try engine.makeBackend()) }
/// ```
public final class LlamaBatchEngine: TaskExecutor, @unchecked Sendable {
    // `context` and `batch` are used only on the engine's thread; the queues only with
    // `condition` locked.
    /// The model every sequence runs.
    public let model: LlamaModel
    /// How many sequences the context holds.
    public let sequenceCapacity: Int
    /// Tokens each sequence may hold.
    public let contextSizePerSequence: Int
    /// The most tokens one `llama_decode` takes.
    var batchCapacity: Int { batch.capacity }
    /// llama.cpp's threads: the most.
    let threads: Int
    /// The threads each decode uses.
    private let threadShare: Mutex<ThreadShare>
    /// The CPU threads the context decodes on; freed after it.
    private let threadPool: CPUThreadPool?
    /// How the context computes attention (``LlamaContextOptions/kernel``).
    let kernel: AttentionKernel
    /// Whether long prompts are read a paced piece a step beside the replies in progress
    /// (``LlamaContextOptions/chunkedPrefill``).
    let chunkedPrefill: Bool
    /// The machine simulated (``LlamaContextOptions/machine``).
    let machine: SimulatedMachine
    /// Whether the context's cache can move its tokens' positions, for a context shift (not a
    /// recurrent model's, nor one whose positions are not plain, as M-RoPE's).
    let canShift: Bool

    /// Whether llama.cpp scores this context's batches exactly as single tokens
    /// (``LlamaModel/scoresBatchesExactly(threads:kernel:)``): then a sequence's replies are
    /// those of decoding it alone, bit for bit.
    public var scoresBatchesExactly: Bool {
        model.scoresBatchesExactly(threads: threads, kernel: kernel, machine: machine)
    }
    let context: OpaquePointer
    /// Where prompts are rendered and tokenized and sampler chains made: neither on the engine's
    /// thread, which would hold up every sequence's next step, nor on the cooperative pool, which
    /// would hold up the tasks that stream the replies; at a lower priority, so that a long prompt
    /// slows the replies being decoded as little as possible; and on several threads, so that one
    /// request's long preparation does not queue the others' short ones behind it.
    let promptThreads = ThreadExecutor(name: "tide-prompts", niceness: 10, threads: 4)
    private let batch: TokenBatch
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var pending: [StepRequest] = []
    private var cleanups: [() -> Void] = []
    private var freeSequences: [Int32]
    private var stopping = false
    /// Signalled by the engine's thread once it has freed the context, just before it ends.
    private let ended = DispatchSemaphore(value: 0)
    /// Whether ``shutdown()`` has seen the thread end (guarded by `condition`).
    private var joined = false
    /// Whether the engine's thread has left its loop, with nothing more to run (guarded by `condition`).
    private var finished = false
    /// The engine's thread, to tell whether ``shutdown()`` is called from it.
    private var thread: Thread?
    /// How long ``shutdown()`` waits for the work queued to run and the context to be freed.
    static let shutdownWait = DispatchTimeInterval.seconds(30)

    /// Creates a context of `sequences` sequences with `options.contextSize` tokens each.
    public init(model: LlamaModel, sequences: Int, options: LlamaContextOptions = LlamaContextOptions()) throws(LlamaError) {
        let perSequence = try options.checkedContextSize(for: model, sequences: sequences)
        var parameters = options.contextParameters(contextSize: perSequence * sequences, sequences: sequences)
        threads = options.resolvedThreads
        threadShare = Mutex(options.threadShare(for: model))
        threadPool = CPUThreadPool(threads: threads)
        kernel = options.kernel
        chunkedPrefill = options.chunkedPrefill
        machine = options.machine
        // Each sequence gets its own part of the cache. A unified cache decoded no faster here
        // (within the machine's noise) and changed more greedy replies against sequential replay.
        parameters.kv_unified = false
        LlamaRuntime.clearErrors()
        guard let context = llama_init_from_model(model.pointer, parameters) else {
            throw .contextFailed(contextSize: perSequence * sequences, detail: LlamaRuntime.errors())
        }
        threadPool?.attach(to: context)
        self.model = model
        self.context = context
        canShift = llama_memory_can_shift(llama_get_memory(context))
        sequenceCapacity = sequences
        contextSizePerSequence = Int(llama_n_ctx_seq(context))
        batch = TokenBatch(capacity: Int(parameters.n_batch))
        freeSequences = (0..<Int32(sequences)).reversed()
        // Weakly: the engine keeps its thread, and a thread keeps its closure after it ends, so a
        // strong capture would keep every engine ever made (its context and its model's weights)
        // alive; while it runs, `run()` holds the engine.
        let thread = Thread { [weak self] in self?.run() }
        thread.name = "tide-batch"
        self.thread = thread
        thread.start()
    }

    /// Lets the engine's thread run the work queued, free the context and end, and waits for
    /// that (at most ``shutdownWait``): the context is freed on the thread that used it, before
    /// the caller goes on to exit — freed later, at the process's exit, it would outlive the GPU
    /// runtime (CUDA aborts the process). Call when no conversation needs the engine any more;
    /// calling it again does nothing.
    public func shutdown() {
        promptThreads.shutdown()
        condition.lock()
        stopping = true
        condition.signal()
        let wait = !joined && Thread.current != thread
        joined = true
        condition.unlock()
        if wait, ended.wait(timeout: .now() + Self.shutdownWait) == .timedOut {
            FileHandle.standardError.write(Data("warning: llama.cpp's batch engine was still busy after 30 s; leaving without freeing its context\n".utf8))
        }
    }

    /// A backend on a free sequence. `contextSize` (rounded up to a multiple of 256, as
    /// llama.cpp does) may be smaller than the engine's per-sequence size; `toolFormat` `nil`
    /// takes the format `template` tells.
    public func makeBackend(template: ChatTemplate = .model, endOfGenerationStrings: [String] = [],
                            toolFormat: ToolCallFormat? = nil, contextSize: Int? = nil) throws(LlamaError) -> LlamaBackend
    {
        let sequence = try takeSequence()
        let size = contextSize.map { min(($0 + 255) / 256 * 256, contextSizePerSequence) } ?? contextSizePerSequence
        return LlamaBackend(engine: self, sequence: sequence, template: template, endOfGenerationStrings: endOfGenerationStrings,
                            toolFormat: toolFormat, contextSize: size)
    }

    /// How many sequences are not taken now.
    public var freeSequenceCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return freeSequences.count
    }

    /// A free sequence, taken until ``release(_:)``.
    func takeSequence() throws(LlamaError) -> Int32 {
        condition.lock()
        let sequence = freeSequences.popLast()
        condition.unlock()
        guard let sequence else { throw .noFreeSequence(capacity: sequenceCapacity) }
        return sequence
    }

    /// Runs `work` on the engine's thread, before any further step, and returns once it has run:
    /// at once when called from that thread (a reply or a benchmark running there).
    func perform(_ work: @escaping @Sendable (OpaquePointer) -> Void) {
        if Thread.current == thread {
            work(context)
            return
        }
        let done = DispatchSemaphore(value: 0)
        condition.lock()
        let running = !finished
        if running {
            cleanups.append { [context] in
                work(context)
                done.signal()
            }
            condition.signal()
        }
        condition.unlock()
        if running { done.wait() }
    }

    /// Makes a sequence available again and clears its cache. The clearing runs before any step
    /// that could hold the next owner's tokens.
    func release(_ sequence: Int32) {
        condition.lock()
        freeSequences.append(sequence)
        cleanups.append { [weak self] in
            guard let self else { return }
            llama_memory_seq_rm(llama_get_memory(context), sequence, 0, -1)
            sampleOnBackend(sequence, nil)
        }
        condition.signal()
        condition.unlock()
    }

    /// Queues tokens of one sequence for the next step; the request's `finish` runs on the
    /// engine's thread as soon as its last token is decoded.
    func step(_ request: StepRequest) {
        condition.lock()
        pending.append(request)
        condition.signal()
        condition.unlock()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    // MARK: The engine's thread

    /// Runs ready jobs first; decodes when there are none. Once stopped with nothing left to
    /// do, frees the context.
    private func run() {
        defer {
            llama_free(context)
            backendSamplers.values.forEach { llama_sampler_free($0.chain) }
            ended.signal()
        }
        warmUp()
        while true {
            condition.lock()
            while jobs.isEmpty && pending.isEmpty && cleanups.isEmpty && !stopping { condition.wait() }
            if !jobs.isEmpty {
                let ready = jobs
                jobs.removeAll()
                condition.unlock()
                for job in ready { job.runSynchronously(on: asUnownedTaskExecutor()) }
                continue
            }
            if stopping && pending.isEmpty && cleanups.isEmpty {
                finished = true
                condition.unlock()
                return
            }
            let work = cleanups
            let requests = pending
            cleanups.removeAll()
            pending.removeAll()
            condition.unlock()
            for cleanup in work { cleanup() }
            if !requests.isEmpty { decode(requests) }
        }
    }

    /// Per sequence, the sampler llama.cpp runs in its graph while that sequence's tokens are
    /// chosen there, and the choice it makes (used on the engine's thread only).
    private var backendSamplers: [Int32: (choice: GraphChoice, chain: UnsafeMutablePointer<llama_sampler>)] = [:]
    /// Whether llama.cpp refused a sampler in its graph (a build or model that cannot run one):
    /// every token is then chosen from copied scores.
    private var backendSamplingRefused = false
    /// How many tokens llama.cpp chose in its graph (``GraphChoice/best``).
    public var tokensChosenOnBackend: Int { chosenOnBackend.load(ordering: .relaxed) }
    private let chosenOnBackend = Atomic<Int>(0)
    /// How many tokens were chosen among the few best scores llama.cpp's graph kept
    /// (``GraphChoice/candidates(_:)``).
    public var tokensChosenAmongGraphCandidates: Int { chosenAmongCandidates.load(ordering: .relaxed) }
    private let chosenAmongCandidates = Atomic<Int>(0)

    /// Has `sequence`'s next decodes choose their token in llama.cpp's graph as `choice` says
    /// (the best score's id, or the few best scores, copied back instead of the whole
    /// vocabulary's) — or not, when `nil`. Each change makes llama.cpp plan its graphs again at
    /// the next decode, so a sequence keeps its sampler from reply to reply while the choice holds.
    private func sampleOnBackend(_ sequence: Int32, _ choice: GraphChoice?) {
        if let current = backendSamplers[sequence] {
            guard current.choice != choice else { return }
            backendSamplers[sequence] = nil
            llama_set_sampler(context, sequence, nil)
            llama_sampler_free(current.chain)
        }
        guard let choice, !backendSamplingRefused, let chain = choice.makeChain() else { return }
        if llama_set_sampler(context, sequence, chain) {
            backendSamplers[sequence] = (choice, chain)
        } else {
            llama_sampler_free(chain)
            backendSamplingRefused = true
        }
    }

    /// The token llama.cpp chose in its graph for batch entry `index` of the last decode; `nil`
    /// when it chose none there (the scores were copied instead).
    func tokenChosenOnBackend(at index: Int32) -> Int32? {
        let token = llama_get_sampled_token_ith(context, index)
        guard token != LLAMA_TOKEN_NULL else { return nil }
        chosenOnBackend.add(1, ordering: .relaxed)
        return token
    }

    /// Counts the token of batch entry `index` of the last decode as chosen among the candidates
    /// llama.cpp's graph kept, when it kept some (the whole row is copied where it could not).
    func countChoiceAmongGraphCandidates(at index: Int32) {
        if llama_get_sampled_candidates_count_ith(context, index) > 0 { chosenAmongCandidates.add(1, ordering: .relaxed) }
    }

    /// Stops choosing `sequence`'s tokens in llama.cpp's graph (``sampleOnBackend(_:_:)``) before
    /// a benchmark decodes it with llama.cpp alone.
    func stopSamplingOnBackend(_ sequence: Int32) {
        perform { [self] _ in sampleOnBackend(sequence, nil) }
    }

    /// Decodes two tokens together, then one alone, and forgets them, before the first request:
    /// the first decodes of a context pay once for what every later one reuses (on a GPU, the
    /// kernels loaded on their first launch and the math library's set-up; docs/speed.md has
    /// the figures), as llama.cpp's own
    /// tools warm up at start. A request queued meanwhile waits for it. An engine of one sequence
    /// whose scores are on a GPU warms up with the greedy choice in its graph already set
    /// (``GraphChoice/best``), as a plain greedy reply will have it there, so that reply's first
    /// decode plans no graph again.
    private func warmUp() {
        let token = llama_vocab_bos(model.vocab) >= 0 ? llama_vocab_bos(model.vocab) : 0
        threadShare.withLock { $0.size(context) }
        if sequenceCapacity == 1 && machine.isReal && model.placement.scoresOnGPU { sampleOnBackend(0, .best) }
        let together = min(2, batch.capacity)
        for (start, count) in [(0, together), (together, 1)] {
            batch.clear()
            for position in start..<start + count { batch.add(token, position: position, sequence: 0, logits: position == start + count - 1) }
            guard llama_decode(context, batch.batch) == 0 else { break }
        }
        batch.clear()
        llama_memory_clear(llama_get_memory(context), true)
    }

    /// Decodes the queued tokens in one step (``StepSelection`` chooses them): the next token of
    /// every reply in progress, and requests of several tokens (new prompts, chunks of a
    /// recorded reply) in the order they came, up to ``sharedTokensPerStep`` in all, together in
    /// one `llama_decode` in sequence order — and, when the oldest holds more than that, a piece
    /// of it in a second one: as much as a batch holds, or, with ``chunkedPrefill`` beside replies
    /// in progress, as much as ``PrefillPace`` allows (at most ``sharedTokensPerStep``). The others
    /// wait for the next step, in the order they came. Between steps the replies run, so a reply
    /// streams its first token as soon as its prompt is decoded, prompts that arrive together are
    /// decoded a few at a time instead of all before any first token, and with chunked prefill a
    /// long prompt slows the replies beside it by a share of each step instead of stopping them.
    ///
    /// Why not more in one decode: llama.cpp splits a batch over a cache per sequence into
    /// parts of equal tokens per sequence, and its flash attention computes a part of 64 tokens
    /// or more per sequence with other kernels than a smaller one. Up to
    /// `sharedTokensPerStep`, every part is small and each token is computed as it would be
    /// alone; a longer run decoded in batches is cut exactly as a sequential replay cuts it. Either
    /// way a sequence's tokens get the values they get in a context of its own (where batches
    /// score exactly), so the replies stay those of sequential replay — but for a long prompt's
    /// paced pieces, which a sequential replay's batches may round otherwise.
    private func decode(_ requests: [StepRequest]) {
        let start = ContinuousClock.now
        sequencesInLastStep.store(Set(requests.map(\.sequence)).count, ordering: .relaxed)
        for request in requests { request.prepare(context) }
        let selection = StepSelection(tokenCounts: requests.map(\.tokens.count), budget: sharedBudget)
        let shared = selection.shared.map { requests[$0] }.sorted { $0.sequence < $1.sequence }
        var leftover: [StepRequest] = []
        if !shared.isEmpty {
            let step = decode(together: shared, fillingGaps: true)
            leftover += step.leftover
            if chunkedPrefill && selection.alone != nil { prefillPace.recordStep(seconds: step.seconds) }
        }
        if let alone = selection.alone {
            let pacing = chunkedPrefill && !shared.isEmpty
            let piece = decode(together: [requests[alone]], piece: pacing ? prefillPace.tokens(limit: Self.sharedTokensPerStep) : nil)
            leftover += piece.leftover
            if pacing { prefillPace.recordPiece(tokens: piece.tokens, seconds: piece.seconds) }
        }
        leftover += selection.later.map { requests[$0] }
        if !leftover.isEmpty {
            // What waiting costs a request: the steps it was not completed in.
            let seconds = (ContinuousClock.now - start).seconds
            for request in leftover { request.waited(seconds) }
            condition.lock()
            pending.insert(contentsOf: leftover, at: 0)
            condition.unlock()
        }
    }

    /// How many prompt tokens a step decodes beside the replies in progress (used on the
    /// engine's thread only).
    private var prefillPace = PrefillPace()

    /// The most tokens a request that keeps the scores of every token (a prompt's logprobs) sends
    /// at once: such a request is not cut into pieces, so with ``chunkedPrefill`` in an engine of
    /// several sequences it is no longer than a step shares, and decodes beside the replies in
    /// progress like a short prompt; otherwise a batch.
    var scoringPiece: Int { chunkedPrefill && sequenceCapacity > 1 ? max(1, sharedBudget) : batch.capacity }

    /// The most tokens of requests of several tokens one step decodes together with the
    /// replies' next tokens: fewer than the 64 per sequence from which llama.cpp's flash
    /// attention changes kernels, and the size of a chunk of a recorded reply. Decoding new
    /// prompts a few per step lets each reply's first token come as soon as its own prompt is
    /// decoded, rather than all after the last (docs/benchmarks.md).
    static let sharedTokensPerStep = TeacherForcer.chunkSize

    /// ``sharedTokensPerStep``, or less when a batch could not hold that many besides a token
    /// for every sequence (a small `--batch-size`): what the step shares always fits in one
    /// `llama_decode`, so a chunk that needs all its logits at once is never cut.
    var sharedBudget: Int { min(Self.sharedTokensPerStep, max(0, batch.capacity - sequenceCapacity)) }

    /// Whether the last step decoded the tokens of more than one sequence. A sequence drafts only
    /// while it is alone: a step that already decodes other sequences' tokens keeps the cores
    /// busy, and a draft checked there is paid by every sequence in it (docs/speed.md).
    var isShared: Bool { sequencesInLastStep.load(ordering: .relaxed) > 1 }
    /// How many sequences had tokens queued in the last step.
    private let sequencesInLastStep = Atomic<Int>(0)
    /// How many throwaway tokens have filled gaps between sequences (`fillingGaps`).
    var gapTokensFilled: Int { gapTokens.load(ordering: .relaxed) }
    private let gapTokens = Atomic<Int>(0)

    /// One `llama_decode` of the requests' tokens (as many as the batch holds, and of a request
    /// of one output at most `piece`); completes those whose last token was in it and returns the
    /// others, with the seconds the decode took and how many tokens it decoded.
    ///
    /// With `fillingGaps` (requests in sequence order), each sequence missing between the
    /// first and the last gets a throwaway token without logits, after what its cache holds, in
    /// its place in the order, dropped again after the decode. With a cache per sequence,
    /// llama.cpp splits a batch into passes over consecutive sequences, so a gap (a script in the
    /// middle that has finished, or is between turns) made every step two passes, each paying
    /// for the weights read again (docs/benchmarks.md). A token's scores do not depend
    /// on the others in a batch of fewer than 64 tokens per sequence, so the padding changes
    /// nothing but the time. Except a sequence whose cache reaches further than every request's
    /// tokens: llama.cpp attends over as many cells for every sequence of a pass as its furthest
    /// reaches, so a throwaway token after an idle conversation of 3,900 tokens made each step of
    /// eight short replies several times as slow (docs/benchmarks.md); such a gap is left.
    private func decode(together requests: [StepRequest], fillingGaps: Bool = false, piece: Int? = nil)
        -> (leftover: [StepRequest], seconds: Double, tokens: Int)
    {
        batch.clear()
        var included: [(request: StepRequest, count: Int, logitsIndex: Int32?)] = []
        var leftover: [StepRequest] = []
        var filled: [(sequence: Int32, position: Int32)] = []
        var nextSequence = requests.first?.sequence ?? 0
        let reach = requests.map { $0.position + $0.tokens.count }.max() ?? 0
        for request in requests {
            sampleOnBackend(request.sequence, request.graphChoice)
            if fillingGaps {
                for sequence in nextSequence..<max(nextSequence, request.sequence) where batch.count < batch.capacity - 1 {
                    let position = llama_memory_seq_pos_max(llama_get_memory(context), sequence) + 1
                    guard Int(position) < min(contextSizePerSequence, reach) else { continue }
                    batch.add(0, position: Int(position), sequence: sequence, logits: false)
                    filled.append((sequence, position))
                    gapTokens.add(1, ordering: .relaxed)
                }
                nextSequence = request.sequence + 1
            }
            let room = batch.capacity - batch.count
            guard room > 0 else {
                leftover.append(request)
                continue
            }
            // A request that keeps the scores of several tokens is never cut.
            let limit = request.outputs == 1 ? piece ?? room : room
            let chunk = request.tokens.prefix(min(room, limit))
            let complete = chunk.count == request.tokens.count
            precondition(complete || request.outputs == 1, "a request with the logits of several tokens fits in one batch")
            var logitsIndex: Int32?
            for (offset, token) in chunk.enumerated() {
                let index = batch.add(token, position: request.position + offset, sequence: request.sequence,
                                      logits: complete && offset >= chunk.count - request.outputs)
                if complete && offset == chunk.count - 1 { logitsIndex = index }
            }
            included.append((request, chunk.count, logitsIndex))
        }
        threadShare.withLock { $0.size(context) }
        let start = ContinuousClock.now
        let code = llama_decode(context, batch.batch)
        let seconds = (ContinuousClock.now - start).seconds
        if code == 0 { batch.simulate(machine, in: context, vocabularySize: model.facts.vocabularySize) }
        for (sequence, position) in filled { llama_memory_seq_rm(llama_get_memory(context), sequence, position, -1) }
        for (request, count, logitsIndex) in included {
            guard code == 0 else {
                request.fail(context, LlamaError.decodeFailed(code: code))
                continue
            }
            request.advance(by: count)
            if let logitsIndex {
                request.complete(context, logitsIndex, decodeSeconds: seconds + request.waitedSeconds)
            } else {
                leftover.append(request)
            }
        }
        return (leftover, seconds, included.reduce(0) { $0 + $1.count })
    }
}
