import Foundation
import Synchronization
import Testing
import TideCore
@testable import TideLlama
import TideTestSupport

extension RealModelTests {
    /// Several conversations decoding as parallel sequences of one batch.
    @Suite struct BatchEngineTests {
        static let questions = ["What is the capital of France?", "Name three colours.", "What is 2 + 2?",
                                "Describe the sea in one sentence."]

        func greedy(_ maxTokens: Int = 32) -> GenerationParameters {
            var parameters = GenerationParameters()
            parameters.temperature = 0
            parameters.maxTokens = maxTokens
            return parameters
        }

        @Test func parallelRepliesMatchOneAtATimeReplies() async throws {
            let single = try LlamaBackend(model: TestModel.shared, options: LlamaContextOptions(contextSize: 1024, machine: .underTest))
            var expected: [String] = []
            for question in Self.questions {
                single.clearCache()
                expected.append(try await ChatSession(backend: single, systemPrompt: "You are a helpful assistant.",
                                                      parameters: greedy()).reply(to: question).collect().text)
            }
            let engine = try LlamaBatchEngine(model: TestModel.shared, sequences: 4, options: LlamaContextOptions(contextSize: 1024, machine: .underTest))
            defer { engine.shutdown() }
            let sessions = try Self.questions.map { _ in
                ChatSession(backend: try engine.makeBackend(), systemPrompt: "You are a helpful assistant.", parameters: greedy())
            }
            let replies = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for (index, session) in sessions.enumerated() {
                    group.addTask { (index, try await session.reply(to: Self.questions[index]).collect().text) }
                }
                var replies = Array(repeating: "", count: sessions.count)
                for try await (index, text) in group { replies[index] = text }
                return replies
            }
            #expect(replies == expected)
            #expect(replies.allSatisfy { !$0.isEmpty })
        }

        /// Prompts of every size starting at once: short ones shared by a step, one just under and
        /// one over the step's budget, and one longer than a batch. Each reply is still the
        /// one-at-a-time reply.
        @Test func promptsOfEverySizeStartingTogetherGetTheOneAtATimeReplies() async throws {
            let passage = "The tide comes in twice a day, as the moon pulls the sea toward the shore and lets it go again. "
            let questions = [
                "What is 2 + 2?", "Name three colours.",
                "Read this and say what pulls the sea: " + passage,
                "Read this and say how often the tide comes in: " + String(repeating: passage, count: 3),
                "Read this and say what the text repeats: " + String(repeating: passage, count: 24),
            ]
            let single = try LlamaBackend(model: TestModel.shared, options: LlamaContextOptions(contextSize: 1024, machine: .underTest))
            var expected: [String] = []
            var promptSizes: [Int] = []
            for question in questions {
                single.clearCache()
                let reply = try await ChatSession(backend: single, parameters: greedy(24)).reply(to: question).collect()
                expected.append(reply.text)
                promptSizes.append(try #require(reply.summary).statistics.promptTokens)
            }
            let budget = LlamaBatchEngine.sharedTokensPerStep
            #expect(promptSizes[2] > budget / 2 && promptSizes[2] <= budget && promptSizes[3] > budget && promptSizes[4] > 512,
                    "the prompts have the sizes the test is about: \(promptSizes)")
            let engine = try LlamaBatchEngine(model: TestModel.shared, sequences: questions.count,
                                              options: LlamaContextOptions(contextSize: 1024, machine: .underTest))
            defer { engine.shutdown() }
            let sessions = try questions.map { _ in ChatSession(backend: try engine.makeBackend(), parameters: greedy(24)) }
            let replies = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for (index, session) in sessions.enumerated() {
                    group.addTask { (index, try await session.reply(to: questions[index]).collect().text) }
                }
                var replies = Array(repeating: "", count: sessions.count)
                for try await (index, text) in group { replies[index] = text }
                return replies
            }
            #expect(replies == expected)
        }

        /// With chunked prefill (`tide serve`'s), a long prompt that arrives while another reply
        /// streams is read a piece a step beside it: the reply goes on getting tokens while the
        /// prompt is read — a piece is at most 63 tokens, so a prompt of 700 takes a dozen steps or
        /// more, where a prompt read in batches of 512 left the reply 5 pieces in all — and stays
        /// the one-at-a-time reply.
        @Test func aLongPromptIsReadBesideAReplyInProgress() async throws {
            let passage = "The tide comes in twice a day, as the moon pulls the sea toward the shore and lets it go again. "
            let long = "Read this and say what the text repeats: " + String(repeating: passage, count: 30)
            let short = "Describe the sea."
            let single = try LlamaBackend(model: TestModel.shared, options: LlamaContextOptions(contextSize: 1024, machine: .underTest))
            func session(_ backend: any ChatBackend, _ maxTokens: Int) -> ChatSession {
                let session = ChatSession(backend: backend, parameters: greedy(maxTokens))
                session.hooks = [EndBan()]
                return session
            }
            let expectedShort = try await session(single, 160).reply(to: short).collect().text
            single.clearCache()
            let expectedLong = try await session(single, 8).reply(to: long).collect()
            let longPrompt = try #require(expectedLong.summary).statistics.promptTokens
            #expect(longPrompt > 600, "the long prompt is long: \(longPrompt) tokens")

            var options = LlamaContextOptions(contextSize: 1024, machine: .underTest)
            options.chunkedPrefill = true
            let engine = try LlamaBatchEngine(model: TestModel.shared, sequences: 2, options: options)
            defer { engine.shutdown() }
            let running = session(try engine.makeBackend(), 160)
            let arriving = session(try engine.makeBackend(), 8)
            // In the order they happen: "s" for each piece of the short reply, "L" when the long
            // prompt is sent, "F" at the long reply's first piece.
            let events = EventLog()
            let (shortText, longText) = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                let started = AsyncStream<Void>.makeStream()
                group.addTask {
                    defer { started.continuation.finish() }
                    var text = ""
                    for try await event in running.reply(to: short) {
                        guard case .text(let piece) = event else { continue }
                        text += piece
                        let count = events.add("s")
                        if count == 4 { started.continuation.finish() }
                    }
                    return (0, text)
                }
                for await _ in started.stream {}
                group.addTask {
                    events.add("L")
                    var text = ""
                    for try await event in arriving.reply(to: long) {
                        guard case .text(let piece) = event else { continue }
                        if text.isEmpty { events.add("F") }
                        text += piece
                    }
                    return (1, text)
                }
                var texts = ["", ""]
                for try await (index, text) in group { texts[index] = text }
                return (texts[0], texts[1])
            }
            // The reply beside is the one-at-a-time reply; the long prompt's pieces may round
            // otherwise than a sequential replay's batch of 512.
            if engine.scoresBatchesExactly { #expect(shortText == expectedShort) }
            #expect(!longText.isEmpty)
            let order = events.text
            let sent = try #require(order.firstIndex(of: "L"))
            let first = try #require(order.firstIndex(of: "F"))
            let besideRead = order[sent..<first].filter { $0 == "s" }.count
            #expect(besideRead >= 10, "the reply got \(besideRead) pieces while the prompt was read: \(order)")
        }

        @Test func aSequenceKeepsItsConversationAcrossTurns() async throws {
            let engine = try LlamaBatchEngine(model: TestModel.shared, sequences: 2, options: LlamaContextOptions(contextSize: 1024, machine: .underTest))
            defer { engine.shutdown() }
            let session = ChatSession(backend: try engine.makeBackend(), systemPrompt: "You are a helpful assistant.",
                                      parameters: greedy())
            let first = try await session.reply(to: "I will tell you a secret word: banana.").collect()
            let second = try await session.reply(to: "What was the secret word?").collect()
            #expect(first.summary?.statistics.reusedPromptTokens == 0)
            let statistics = try #require(second.summary?.statistics)
            #expect(statistics.reusedPromptTokens > 20)
            #expect(statistics.promptTokens - statistics.reusedPromptTokens < 25)
            // The reply is the one a context of its own gives with the whole conversation.
            let alone = ChatSession(backend: try LlamaBackend(model: TestModel.shared, options: LlamaContextOptions(contextSize: 1024, machine: .underTest)),
                                    systemPrompt: "You are a helpful assistant.", parameters: greedy())
            #expect(try await alone.reply(to: "I will tell you a secret word: banana.").collect().text == first.text)
            #expect(try await alone.reply(to: "What was the secret word?").collect().text == second.text)
        }

        /// The sequences on either side of an idle one decode in one step over a throwaway token for
        /// it; the idle conversation keeps its cache, and every reply is the one-at-a-time reply.
        @Test func aGapBetweenSequencesChangesNoReply() async throws {
            let single = try LlamaBackend(model: TestModel.shared, options: LlamaContextOptions(contextSize: 1024, machine: .underTest))
            func alone(_ questions: [String]) async throws -> [String] {
                single.clearCache()
                let session = ChatSession(backend: single, systemPrompt: "You are a helpful assistant.", parameters: greedy(48))
                var replies: [String] = []
                for question in questions { replies.append(try await session.reply(to: question).collect().text) }
                return replies
            }
            let middleExpected = try await alone(["Name three colours.", "What is 2 + 2?"])
            let leftExpected = try await alone(["Describe the sea in one sentence."])
            let rightExpected = try await alone(["And the sky?"])
            let engine = try LlamaBatchEngine(model: TestModel.shared, sequences: 3, options: LlamaContextOptions(contextSize: 1024, machine: .underTest))
            defer { engine.shutdown() }
            let sessions = try (0..<3).map { _ in
                ChatSession(backend: try engine.makeBackend(), systemPrompt: "You are a helpful assistant.", parameters: greedy(48))
            }
            // The middle conversation has a turn in its cache, then stays idle while the others decode.
            let first = try await sessions[1].reply(to: "Name three colours.").collect()
            async let left = sessions[0].reply(to: "Describe the sea in one sentence.").collect()
            async let right = sessions[2].reply(to: "And the sky?").collect()
            let (leftReply, rightReply) = try await (left, right)
            #expect([first.text, leftReply.text, rightReply.text] == [middleExpected[0], leftExpected[0], rightExpected[0]])
            // Its next turn reuses its cache, untouched by the padding.
            let next = try await sessions[1].reply(to: "What is 2 + 2?").collect()
            #expect(next.summary.map { $0.statistics.reusedPromptTokens > 20 } == true)
            #expect(next.text == middleExpected[1])
        }

        /// An idle conversation between two others gets a throwaway token in their steps while its
        /// cache reaches no further than theirs, and none once it reaches further: llama.cpp would
        /// attend over all of it for every sequence of the step.
        @Test func aGapIsFilledOnlyWhereItsCacheReachesNoFurther() async throws {
            let passage = "The tide comes in twice a day, as the moon pulls the sea toward the shore and lets it go again. "
            let long = "Read this: " + String(repeating: passage, count: 12)
            func filled(middle: String, sides: String) async throws -> Int {
                let engine = try LlamaBatchEngine(model: TestModel.shared, sequences: 3, options: LlamaContextOptions(contextSize: 1024, machine: .underTest))
                defer { engine.shutdown() }
                let sessions = try (0..<3).map { index in
                    let session = ChatSession(backend: try engine.makeBackend(), parameters: greedy(index == 1 ? 1 : 16))
                    session.hooks = [EndBan()]
                    return session
                }
                _ = try await sessions[1].reply(to: middle).collect()
                let before = engine.gapTokensFilled
                async let left = sessions[0].reply(to: sides).collect()
                async let right = sessions[2].reply(to: sides).collect()
                _ = try await (left, right)
                return engine.gapTokensFilled - before
            }
            let short = "Hello there, how are you today?"
            #expect(try await filled(middle: "Hi", sides: short) > 0, "a short idle conversation is padded")
            #expect(try await filled(middle: long, sides: short) == 0, "a long idle conversation is left out")
        }

        @Test func sequencesAreLimitedAndReleased() async throws {
            let engine = try LlamaBatchEngine(model: TestModel.shared, sequences: 2, options: LlamaContextOptions(contextSize: 512, machine: .underTest))
            defer { engine.shutdown() }
            var first: LlamaBackend? = try engine.makeBackend()
            let second = try engine.makeBackend()
            #expect(throws: LlamaError.noFreeSequence(capacity: 2)) { try engine.makeBackend() }
            _ = try await ChatSession(backend: first!, parameters: greedy(4)).reply(to: "Hi").collect()
            first = nil
            // The reply's task lets go of the backend just after its last event: wait for it (bounded).
            var freed: LlamaBackend?
            for _ in 0..<500 where freed == nil {
                freed = try? engine.makeBackend()
                if freed == nil { try await Task.sleep(for: .milliseconds(10)) }
            }
            let third = try #require(freed, "the released sequence came back")
            // The released sequence starts empty for its new owner.
            let reply = try await ChatSession(backend: third, parameters: greedy(4)).reply(to: "Hi").collect()
            #expect(reply.summary?.statistics.reusedPromptTokens == 0)
            _ = second
        }

        @Test func contextSizeAndLogitsHooksPerSequence() async throws {
            let engine = try LlamaBatchEngine(model: TestModel.shared, sequences: 2, options: LlamaContextOptions(contextSize: 1024, machine: .underTest))
            defer { engine.shutdown() }
            let small = try engine.makeBackend(contextSize: 100)
            #expect(small.contextSize == 256)
            let long = String(repeating: "Tell me about the sea. ", count: 60)
            await #expect(throws: ContextOverflowError.self) {
                _ = try await ChatSession(backend: small, parameters: self.greedy()).reply(to: long).collect()
            }
            let hook = BanHook(token: TestModel.shared.tokens(of: " Paris")[0])
            let banned = ChatSession(backend: try engine.makeBackend(), systemPrompt: "You are a helpful assistant.",
                                     parameters: greedy(), hooks: [hook])
            let reply = try await banned.reply(to: "What is the capital of France?").collect()
            #expect(hook.topSeen.withLock { $0 }, "the sequence's hook saw its scores")
            #expect(!reply.text.contains("Paris"))
        }
    }
}

/// What the batch probe found, kept across processes for one model file, thread count, kernel and
/// llama.cpp library.
@Suite struct BatchFactsRecordTests {
    @Test func aFindingIsKeptForItsOwnKeyOnly() throws {
        let cache = try TestModel.scratchDirectory()
        let environment = ["XDG_CACHE_HOME": cache.path]
        let record = BatchFactsRecord(model: TestModel.shared, threads: 2, kernel: AttentionKernel(), environment: environment)
        let facts = BatchFacts(exact: true, sameOnOneThread: true, checkCosts: [1.5, 2.5, 3.5, 5.5])
        #expect(record.read() == nil, "nothing is known in a new cache")
        record.write(facts)
        #expect(record.read() == facts)
        #expect(BatchFactsRecord(model: TestModel.shared, threads: 2, kernel: AttentionKernel(), environment: environment).read() == facts,
                "another process finds it")
        #expect(BatchFactsRecord(model: TestModel.shared, threads: 1, kernel: AttentionKernel(), environment: environment).read() == nil)
        #expect(BatchFactsRecord(model: TestModel.shared, threads: 2, kernel: AttentionKernel(flashAttention: false), environment: environment).read() == nil)
        #expect(BatchFactsRecord(model: TestModel.shared, threads: 2, kernel: AttentionKernel(keyCache: .q8_0, valueCache: .q8_0),
                                 environment: environment).read() == nil, "a quantized cache is a kernel of its own")
        #expect(record.key.contains(TestModel.shared.path) && record.key.contains("libllama"), "\(record.key)")
        try Data("not json".utf8).write(to: record.file)
        #expect(record.read() == nil, "a damaged file is ignored: the probe runs again")
        record.write(BatchFacts(exact: false, sameOnOneThread: false, checkCosts: [2, 4]))
        #expect(record.read() == nil, "a finding of another shape is probed again")
    }

    /// The probe measures what a check costs here, for each chunk size (how much is this machine's
    /// business: a loaded machine measures anything); a simulated machine's costs replace it.
    @Test func theProbeMeasuresWhatAChunkCostsUnlessTheyAreGiven() {
        let costs = TestModel.shared.draftCheckCosts(threads: 2, kernel: AttentionKernel(), machine: SimulatedMachine())
        #expect(costs.chunks == BatchFacts.chunkSizes)
        #expect(costs.costs.count == BatchFacts.chunkSizes.count && costs.costs.allSatisfy { $0.isFinite && $0 > 0 }, "\(costs.costs)")
        let given = TestModel.shared.draftCheckCosts(threads: 2, kernel: AttentionKernel(), machine: SimulatedMachine(checkCosts: .dear))
        #expect(given == .dear)
    }
}

/// Events in the order they happen, from several tasks.
private final class EventLog: Sendable {
    private let events = Mutex<[Character]>([])

    /// Appends `event`; how many there are now.
    @discardableResult func add(_ event: Character) -> Int {
        events.withLock { events in
            events.append(event)
            return events.count
        }
    }

    /// Every event so far, in order.
    var text: String { events.withLock { String($0) } }
}

/// The KV cache's types (`--cache-type-k`, `--cache-type-v`): a quantized cache takes the
/// memory its type says, decodes, and is a kernel of its own for the batch probe.
@Suite struct KVCacheTypeTests {
    @Test func aQuantizedCacheDecodesInTheMemoryItsTypeSays() async throws {
        var options = LlamaContextOptions(contextSize: 512)
        options.keyCacheType = .q8_0
        options.valueCacheType = .q4_0
        options.flashAttention = false
        // A quantized value cache needs flash attention: it is on whatever the option says.
        #expect(options.kernel == AttentionKernel(flashAttention: true, keyCache: .q8_0, valueCache: .q4_0))
        let engine = try LlamaBatchEngine(model: TestModel.shared, sequences: 2, options: options)
        defer { engine.shutdown() }
        var parameters = GenerationParameters()
        parameters.maxTokens = 8
        parameters.logitBias = [LogitBias(.text("Yes"), 100)]
        let session = ChatSession(backend: try engine.makeBackend(), parameters: parameters)
        let reply = try await session.reply(to: "Say yes.").collect()
        #expect(reply.text == String(repeating: "Yes", count: 8), "\(reply.text)")
        // The estimate follows the types: q8_0 keys (34 bytes a block of 32) and q4_0 values (18) against f16 (64 each).
        let f16 = TestModel.shared.kvCacheBytes(contextSize: 1024)
        let mixed = TestModel.shared.kvCacheBytes(contextSize: 1024, key: .q8_0, value: .q4_0)
        #expect(mixed * 128 == f16 * 52, "\(mixed) of \(f16)")
        let footprint = try ModelFootprint(ofFile: TestModel.shared.path, contextSize: 1024, sequences: 2, key: .q8_0, value: .q4_0)
        #expect(footprint.cacheBytes == mixed * 2 && footprint.contextSize == 1024)
    }
}
