import Testing
@testable import TideCore
import TideTestSupport

@Suite struct ChatSessionTests {
    @Test func streamsTextThenASummaryAndStoresTheTurn() async throws {
        let backend = ScriptedBackend(["Hello", ",", " world"])
        let session = ChatSession(backend: backend, systemPrompt: "Be brief.")
        let reply = try await session.reply(to: "Hi").collect()
        #expect(reply.texts == ["Hello", ",", " world"])
        #expect(reply.summary?.stopReason == .endOfGeneration)
        #expect(reply.summary?.statistics.generatedTokens == 3)
        #expect(reply.summary?.statistics.promptTokens == "Be brief.".count + "Hi".count)
        #expect(session.history == [ChatMessage(.system, "Be brief."), ChatMessage(.user, "Hi"),
                                    ChatMessage(.assistant, "Hello, world")])
        #expect(backend.events == ["prompt", "sample 0", "sample 1", "sample 2", "close"])
    }

    @Test func hooksRunInPipelineOrderAndPluginOrder() async throws {
        let journal = Journal()
        let all = Set(HookPoint.allCases)
        let backend = ScriptedBackend(["a", "b"])
        let session = ChatSession(backend: backend, hooks: [
            TestHook("first", all, journal: journal), TestHook("second", all, journal: journal),
        ])
        _ = try await session.reply(to: "go").collect()
        #expect(journal.all == [
            "first.prompt", "second.prompt",
            "first.logits", "second.logits", "first.stop", "second.stop", "first.token a", "second.token a",
            "first.logits", "second.logits", "first.stop", "second.stop", "first.token b", "second.token b",
            "first.logits", "second.logits",  // the step that ends the reply
            "first.token ", "second.token ",  // the final call, for filters that hold text back
            "first.reply", "second.reply",
        ])
    }

    @Test func aLogitsHookOnABackendWithoutLogitsIsRefusedByName() async throws {
        let backend = ScriptedBackend(["x"])
        backend.supportsLogits = false
        let session = ChatSession(backend: backend, hooks: [TestHook("filter", [.token], journal: Journal()),
                                                            TestHook("prefer-words", [.logits], journal: Journal())])
        await #expect(throws: UnsupportedHookError(hook: "prefer-words", model: "scripted", needs: .logits)) {
            _ = try await session.reply(to: "go").collect()
        }
        #expect(backend.events.isEmpty, "nothing reached the model")
        #expect(session.history.isEmpty)
        session.hooks = [TestHook("filter", [.token], journal: Journal())]
        #expect(try await session.reply(to: "go").collect().texts == ["x"], "the session goes on")
    }

    /// Log-probabilities asked of a backend that reads no scores are refused, never left out: before
    /// the model is asked when the backend says so, at the first token when its decoder gives none.
    @Test func logprobsWithoutScoresAreRefused() async throws {
        var parameters = GenerationParameters()
        parameters.logprobs = 2
        let remote = ScriptedBackend(["x"])
        remote.supportsLogits = false
        await #expect(throws: LogprobsUnsupported()) {
            _ = try await ChatSession(backend: remote, parameters: parameters).reply(to: "go").collect()
        }
        #expect(remote.events.isEmpty, "nothing reached the model")
        let scriptless = ScriptedBackend(["x"])
        await #expect(throws: LogprobsUnsupported()) {
            _ = try await ChatSession(backend: scriptless, parameters: parameters).reply(to: "go").collect()
        }
        parameters.logprobs = nil
        #expect(try await ChatSession(backend: scriptless, parameters: parameters).reply(to: "go").collect().text == "x")
    }

    @Test func onlyDeclaredPointsAreCalledAndNoLogitsViewWithoutLogitsHooks() async throws {
        let journal = Journal()
        let session = ChatSession(backend: ScriptedBackend(["x"]), hooks: [TestHook("t", [.token], journal: journal)])
        _ = try await session.reply(to: "go").collect()
        #expect(journal.all == ["t.token x", "t.token "])
    }

    @Test func promptHooksEditThisTurnOnlyAndCanSetTheSystemPrompt() async throws {
        let journal = Journal()
        let backend = ScriptedBackend(["ok"])
        let hook = TestHook("persona", [.prompt], journal: journal, prompt: { prompt in
            prompt.setSystemPrompt("You are a pirate.")
            prompt.parameters.maxTokens = 1
            return .proceed
        })
        let session = ChatSession(backend: backend, systemPrompt: "Be nice.", hooks: [hook])
        _ = try await session.reply(to: "hi").collect()
        #expect(backend.receivedPrompts.first?.first == ChatMessage(.system, "You are a pirate."))
        #expect(session.history.first == ChatMessage(.system, "Be nice."))
    }

    @Test func aPromptHookCanAnswerWithoutTheModel() async throws {
        let journal = Journal()
        let backend = ScriptedBackend(["never"])
        let canned = TestHook("canned", [.prompt], journal: journal, prompt: { _ in .answer("42") })
        let later = TestHook("later", [.prompt, .token, .reply], journal: journal)
        let session = ChatSession(backend: backend, hooks: [canned, later])
        let reply = try await session.reply(to: "meaning of life?").collect()
        #expect(reply.text == "42")
        #expect(reply.summary?.stopReason == .answeredByHook(name: "canned"))
        #expect(backend.events.isEmpty)
        #expect(journal.all == ["canned.prompt", "later.token 42", "later.token ", "later.reply"])
        #expect(session.history.last == ChatMessage(.assistant, "42"))
    }

    @Test func tokenHooksReplaceDropAndChainInOrder() async throws {
        let journal = Journal()
        let upper = TestHook("upper", [.token], journal: journal, token: { token, _ in .replace(token.text.uppercased()) })
        let dropB = TestHook("drop-b", [.token], journal: journal, token: { token, _ in token.text == "B" ? .drop : .pass })
        let session = ChatSession(backend: ScriptedBackend(["a", "b", "c"]), hooks: [upper, dropB])
        let reply = try await session.reply(to: "go").collect()
        #expect(reply.texts == ["A", "C"])
        #expect(reply.summary?.rawText == "abc")
        #expect(reply.summary?.text == "AC")
        #expect(journal.all == ["upper.token a", "drop-b.token A", "upper.token b", "drop-b.token B",
                                "upper.token c", "drop-b.token C", "upper.token ", "drop-b.token "])
    }

    @Test func aTokenHookCanStopAfterItsText() async throws {
        let journal = Journal()
        let hook = TestHook("enough", [.token], journal: journal, token: { token, reply in
            TokenDecision(stopReason: reply.tokenCount == 2 ? "two tokens" : nil)
        })
        let session = ChatSession(backend: ScriptedBackend(["a", "b", "c"]), hooks: [hook])
        let reply = try await session.reply(to: "go").collect()
        #expect(reply.text == "ab")
        #expect(reply.summary?.stopReason == .hook(name: "enough", reason: "two tokens"))
        #expect(reply.summary?.stopReason.description == "plugin:enough: two tokens")
    }

    @Test func stopConditionHooksSeeTheReplySoFar() async throws {
        let journal = Journal()
        let sentences = TestHook("one-sentence", [.stop], journal: journal, stop: { reply in
            reply.text.contains(".") ? "1 sentence" : nil
        })
        let session = ChatSession(backend: ScriptedBackend(["Hi", ".", " More", "."]), hooks: [sentences])
        let reply = try await session.reply(to: "go").collect()
        #expect(reply.text == "Hi.")
        #expect(reply.summary?.stopReason == .hook(name: "one-sentence", reason: "1 sentence"))
    }

    @Test func logitsHooksGetTheView() async throws {
        let journal = Journal()
        let backend = ScriptedBackend(["a"])
        let hook = TestHook("ban", [.logits], journal: journal, logits: { view in
            #expect(view.top(2).map(\.id) == [0, 1])
            view.ban(7)
            view.bias(3, by: -2)
        })
        _ = try await ChatSession(backend: backend, hooks: [hook]).reply(to: "go").collect()
        #expect(backend.events.prefix(4) == ["prompt", "ban 7", "bias 3 -2.0", "sample 0"])
    }

    @Test func postReplyHooksRewriteWhatIsStored() async throws {
        let journal = Journal()
        let hook = TestHook("summarise", [.reply], journal: journal, reply: { reply in
            reply.storedText = "[\(reply.shownText.count) characters]"
        })
        let session = ChatSession(backend: ScriptedBackend(["long", " reply"]), hooks: [hook])
        let reply = try await session.reply(to: "go").collect()
        #expect(reply.text == "long reply")
        #expect(reply.summary?.storedText == "[10 characters]")
        #expect(session.history.last?.content == "[10 characters]")
    }

    @Test func aFailingHookIsReportedOnceDisabledAndTheReplyGoesOn() async throws {
        let journal = Journal()
        let broken = TestHook("broken", [.token, .stop], journal: journal, token: { _, _ in throw Boom() })
        let session = ChatSession(backend: ScriptedBackend(["a", "b"]), hooks: [broken])
        let first = try await session.reply(to: "go").collect()
        #expect(first.text == "ab")
        #expect(first.failures == [HookFailure(hookName: "broken", point: .token, message: "boom")])
        #expect(session.disabledHookNames == ["broken"])
        let second = try await session.reply(to: "again").collect()
        #expect(second.failures.isEmpty)
        #expect(journal.all.filter { $0.hasPrefix("broken.token") }.count == 1)
        // Adding another hook keeps it disabled; a new instance of it starts enabled.
        session.hooks.append(TestHook("other", [], journal: journal))
        #expect(session.disabledHookNames == ["broken"])
        session.hooks = [TestHook("broken", [.token], journal: journal)]
        #expect(session.disabledHookNames.isEmpty)
    }

    @Test func strictPolicyEndsTheReplyWithTheFailureAndKeepsThePartialText() async throws {
        let journal = Journal()
        let broken = TestHook("broken", [.token], journal: journal, token: { token, _ in
            if token.text == "b" { throw Boom() }
            return .pass
        })
        let session = ChatSession(backend: ScriptedBackend(["a", "b", "c"]), hooks: [broken], hookErrorPolicy: .failReply)
        await #expect(throws: HookFailure(hookName: "broken", point: .token, message: "boom")) {
            _ = try await session.reply(to: "go").collect()
        }
        #expect(session.history.last == ChatMessage(.assistant, "a", interrupted: true))
    }

    @Test func maxTokensIsHonoured() async throws {
        let session = ChatSession(backend: ScriptedBackend(["a", "b", "c", "d"]))
        session.parameters.maxTokens = 2
        let reply = try await session.reply(to: "go").collect()
        #expect(reply.text == "ab")
        #expect(reply.summary?.stopReason == .maxTokens)
        #expect(reply.summary?.statistics.generatedTokens == 2)
    }

    @Test func stopStringsNeverLeakAndPartialMatchesFlush() async throws {
        let session = ChatSession(backend: ScriptedBackend(["one", " EN", "D", " two"]))
        session.parameters.stop = [" END"]
        let stopped = try await session.reply(to: "go").collect()
        #expect(stopped.text == "one")
        #expect(stopped.summary?.stopReason == .stopString(" END"))

        let flushed = ChatSession(backend: ScriptedBackend(["one", " EN"]))
        flushed.parameters.stop = [" END"]
        let reply = try await flushed.reply(to: "go").collect()
        #expect(reply.text == "one EN")
        #expect(reply.summary?.stopReason == .endOfGeneration)
    }

    @Test func modelEndStringsEndTheReplyAsEndOfGeneration() async throws {
        let session = ChatSession(backend: ScriptedBackend(["Sure", "<|end|>", "junk"], endOfGenerationStrings: ["<|end|>"]))
        let reply = try await session.reply(to: "go").collect()
        #expect(reply.text == "Sure")
        #expect(reply.summary?.stopReason == .endOfGeneration)
    }

    @Test func aCharacterSplitAcrossTokensIsEmittedWhole() async throws {
        let coffee = Array("☕".utf8)
        let backend = ScriptedBackend(tokens: [Array("a ".utf8) + coffee.prefix(2), Array(coffee.suffix(1)) + [0x21]])
        let reply = try await ChatSession(backend: backend).reply(to: "go").collect()
        #expect(reply.texts == ["a ", "☕!"])
    }

    @Test func cancellingKeepsThePartialReplyAndTheSessionUsable() async throws {
        // 10,000 tokens a millisecond apart: the reply cannot end before the consumer leaves.
        let backend = ScriptedBackend((0..<10_000).map { _ in "x" })
        backend.tokenDelay = .milliseconds(1)
        let session = ChatSession(backend: backend)
        session.parameters.maxTokens = 100_000
        var received = 0
        for try await event in session.reply(to: "go") {
            if case .text = event { received += 1 }
            if received == 3 { break }
        }
        // The producer notices the cancellation at its next step and commits the partial reply.
        while session.history.count < 2 { await Task.yield() }
        let partial = try #require(session.history.last)
        #expect(partial.interrupted)
        #expect(partial.content.count >= 3 && partial.content.count < 10_000)
        #expect(backend.events.last == "close")
        session.parameters.maxTokens = 3
        let next = try await session.reply(to: "again").collect()
        #expect(next.summary != nil)
    }

    @Test func aSecondReplyWhileTheFirstRunsIsRefused() async throws {
        let session = ChatSession(backend: ScriptedBackend((0..<1000).map { _ in "x" }))
        let first = session.reply(to: "one")
        await #expect(throws: ChatSessionError.busy) { _ = try await session.reply(to: "two").collect() }
        _ = try await first.collect()
    }

    @Test func contextOverflowFailsWithTheSizes() async throws {
        let session = ChatSession(backend: ScriptedBackend(["a"], contextSize: 10))
        await #expect(throws: ContextOverflowError(promptTokens: 21, contextSize: 10)) {
            _ = try await session.reply(to: String(repeating: "w", count: 20)).collect()
        }
        #expect(session.history.isEmpty)
    }

    @Test func dropOldestKeepsTheSystemPromptAndTheNewMessage() async throws {
        let backend = ScriptedBackend(["ok"], contextSize: 40)
        let session = ChatSession(backend: backend, systemPrompt: "sys", overflowPolicy: .dropOldest)
        session.parameters.maxTokens = 4
        session.history += [ChatMessage(.user, "first question"), ChatMessage(.assistant, "first answer"),
                            ChatMessage(.user, "second"), ChatMessage(.assistant, "reply")]
        _ = try await session.reply(to: "third one").collect()
        #expect(backend.receivedPrompts.last?.map(\.content) == ["sys", "second", "reply", "third one"])
        #expect(session.history.count == 7)
    }

    @Test func shiftIsRefusedByABackendThatHoldsNoCacheAndLosesNothing() async throws {
        let backend = ScriptedBackend(["ok"], contextSize: 40)
        let session = ChatSession(backend: backend, systemPrompt: "sys", overflowPolicy: .shift)
        await #expect {
            _ = try await session.reply(to: "hello").collect()
        } throws: { error in
            "\(error)".contains("cannot shift its context") && "\(error)".contains("--context-overflow drop-oldest")
        }
        #expect(session.history.count == 1 && backend.receivedPrompts.isEmpty)
    }
}

@Suite struct CancelReplyTests {
    @Test func cancelReplyStillDeliversTheSummary() async throws {
        let backend = ScriptedBackend((0..<10_000).map { _ in "x" })
        backend.tokenDelay = .milliseconds(1)
        let session = ChatSession(backend: backend)
        session.parameters.maxTokens = 100_000
        var summary: ReplySummary?
        var pieces = 0
        for try await event in session.reply(to: "go") {
            switch event {
            case .text:
                pieces += 1
                if pieces == 3 { session.cancelReply() }
            case .finished(let finished): summary = finished
            case .hookFailure, .rewound, .toolCall, .toolCallText, .toolResult, .reasoning, .logprobs, .promptLogprobs: break
            }
        }
        #expect(summary?.stopReason == .cancelled)
        let generated = try #require(summary?.statistics.generatedTokens)
        #expect(generated >= 3 && generated < 10_000)
        #expect(session.history.last?.interrupted == true)
        #expect(session.history.last?.content == summary?.text)
    }
}
