import Synchronization
import Testing
import TideCore
import TideTestSupport

/// The policy hooks on a scripted backend: `on_tool_call` in hook order before a call runs (and
/// before the user is asked), `on_tool_result` after, and a policy hook that fails is handled as
/// any hook's failure is.
@Suite struct ToolPolicyTests {
    /// A policy that decides with `decide` and rewrites results with `result`, noting what it saw.
    final class Policy: ChatHook, @unchecked Sendable {
        let name: String
        let points: Set<HookPoint> = [.toolCall, .toolResult]
        let decide: @Sendable (ToolCallReview) throws -> ToolCallDecision
        let result: @Sendable (ToolResult) -> String?
        var seen: [ToolCallReview] = []

        init(_ name: String, decide: @escaping @Sendable (ToolCallReview) throws -> ToolCallDecision = { _ in .run },
             result: @escaping @Sendable (ToolResult) -> String? = { _ in nil }) {
            self.name = name
            self.decide = decide
            self.result = result
        }

        func onToolCall(_ review: ToolCallReview) throws -> ToolCallDecision {
            seen.append(review)
            return try decide(review)
        }

        func onToolResult(_ result: ToolResult, review: ToolCallReview) throws -> String? { self.result(result) }
    }

    /// A result hook that fails.
    final class FailingResult: ChatHook, Sendable {
        let name = "leaky"
        let points: Set<HookPoint> = [.toolResult]
        func onToolResult(_ result: ToolResult, review: ToolCallReview) throws -> String? { throw ToolFailure("no") }
    }

    /// How many times the user was asked (or anything else was counted).
    final class Approvals: Sendable {
        let count = Mutex(0)
    }

    func session(_ hooks: [any ChatHook], policy: HookErrorPolicy = .disableHook) -> ChatSession {
        let backend = ScriptedBackend(contextSize: 65_536) { messages in
            messages.last?.role == .tool ? ["Done."] : ["<call>add {\"a\": 2, \"b\": 3}</call>"]
        }
        backend.toolCallReader = ToolRoundsTests.Reader()
        return ChatSession(backend: backend, hooks: hooks, hookErrorPolicy: policy)
    }

    @Test func policiesRewriteInOrderThenTheToolRunsAndTheResultIsReplaced() async throws {
        let first = Policy("first", decide: { _ in .rewrite(arguments: #"{"a": 40, "b": 2}"#) })
        let second = Policy("second", result: { "seen: " + $0.content })
        let reply = try await session([first, second, ToolRoundsTests.Adder()]).reply(to: "Add.").collect()
        // The second policy sees the first one's rewrite, the provider and the round.
        #expect(second.seen.map(\.call.arguments) == [#"{"a": 40, "b": 2}"#])
        #expect(second.seen.first?.provider == "adder" && second.seen.first?.round == 1)
        #expect(reply.toolResults.map(\.content) == ["seen: 42"])
        // The model's call stays as it wrote it in the history; the result is the rewritten call's.
        #expect(reply.toolCalls.first?.arguments == #"{"a": 2, "b": 3}"#)
    }

    @Test func aRefusalOrAnAnswerEndsTheCallBeforeTheToolAndTheUser() async throws {
        let approvals = Approvals()
        for (decision, content, failed) in [(ToolCallDecision.refuse(reason: "not today"), "error: gate refused this call: not today", true),
                                            (.answer("42, from the policy"), "42, from the policy", false)] {
            let gate = Policy("gate", decide: { _ in decision })
            let later = Policy("later")
            let session = session([gate, later, ToolRoundsTests.Adder()])
            session.toolApproval = { _ in
                approvals.count.withLock { $0 += 1 }
                return true
            }
            let reply = try await session.reply(to: "Add.").collect()
            #expect(reply.toolResults.map(\.content) == [content] && reply.toolResults.first?.failed == failed)
            #expect(later.seen.isEmpty, "a decision ends the call: later policies do not see it")
        }
        #expect(approvals.count.withLock { $0 } == 0, "a call the policy decided is never put to the user")
    }

    @Test func aPolicyThatFailsRefusesTheCallOrFailsTheReply() async throws {
        struct Broken: Error, CustomStringConvertible { var description: String { "broken policy" } }
        let broken = Policy("broken", decide: { _ in throw Broken() })
        let reply = try await session([broken, ToolRoundsTests.Adder()]).reply(to: "Add.").collect()
        // A broken policy never lets through what it was there to stop.
        #expect(reply.toolResults.map(\.content) == ["error: broken refused this call: its policy failed (the plugin is disabled)"])
        #expect(reply.failures.map { "\($0.hookName) \($0.point) \($0.message)" } == ["broken on_tool_call broken policy"], "\(reply.failures)")
        // A result hook that fails withholds the result.
        let withheld = try await session([Policy("redactor", result: { _ in nil }), FailingResult(), ToolRoundsTests.Adder()])
            .reply(to: "Add.").collect()
        #expect(withheld.toolResults.map(\.content) == ["error: the result was withheld: leaky failed on it (the plugin is disabled)"])
        // Disabled, a policy still refuses: the next call (a turn later in the same session) does not run unchecked.
        let calls = Approvals()
        let failedOnce = Policy("flaky", decide: { _ in
            // Fails on the first call alone: before, it was disabled then, and the next call ran unchecked.
            if calls.count.withLock({ count in
                defer { count += 1 }
                return count == 0
            }) { throw Broken() }
            return .refuse(reason: "never")
        })
        let flaky = session([failedOnce, ToolRoundsTests.Adder()])
        _ = try await flaky.reply(to: "Add.").collect()
        let later = try await flaky.reply(to: "Add again.").collect()
        #expect(later.toolResults.map(\.content)
                    == ["error: flaky refused this call: its policy failed earlier (the plugin is disabled), so no call runs unchecked"],
                "\(later.toolResults)")
        let leaky = session([FailingResult(), ToolRoundsTests.Adder()])
        _ = try await leaky.reply(to: "Add.").collect()
        let laterResult = try await leaky.reply(to: "Add again.").collect()
        #expect(laterResult.toolResults.map(\.content) == ["error: the result was withheld: leaky failed earlier (the plugin is disabled)"])
        await #expect(throws: HookFailure.self) {
            _ = try await session([Policy("broken", decide: { _ in throw Broken() }), ToolRoundsTests.Adder()], policy: .failReply)
                .reply(to: "Add.").collect()
        }
    }

    /// A session whose tools are a client's (a server's request's): no provider runs them, and
    /// the scripted model quotes a tool result it is given.
    func clientSession(_ hooks: [any ChatHook]) -> ChatSession {
        let backend = ScriptedBackend(contextSize: 65_536) { messages in
            messages.last?.role == .tool ? ["Read: " + (messages.last?.content ?? "")] : ["<call>add {\"a\": 2, \"b\": 3}</call>"]
        }
        backend.toolCallReader = ToolRoundsTests.Reader()
        var parameters = GenerationParameters()
        parameters.tools = [ToolDefinition(name: "add", description: "Adds", parameters: #"{"type": "object", "properties": {}}"#)]
        return ChatSession(backend: backend, parameters: parameters, hooks: hooks)
    }

    @Test func aClientsCallsPassThePolicyBeforeTheyAreReturned() async throws {
        // Allowed: returned to the client, as the policy rewrote it, seen as the client's.
        let rewriting = Policy("gate", decide: { _ in .rewrite(arguments: #"{"a": 1, "b": 1}"#) })
        let allowed = try await clientSession([rewriting]).reply(to: "Add.").collect()
        #expect(allowed.summary?.toolCalls.map(\.arguments) == [#"{"a": 1, "b": 1}"#])
        #expect(rewriting.seen.map(\.provider) == ["client"] && allowed.toolResults.isEmpty)
        // Refused: never returned; the model reads the refusal as the call's result and goes on.
        let refused = try await clientSession([Policy("gate", decide: { _ in .refuse(reason: "not today") })]).reply(to: "Add.").collect()
        #expect(refused.summary?.toolCalls == [])
        #expect(refused.text == "Read: error: gate refused this call: not today", "\(refused.text)")
        // Answered by the policy: the model reads its answer.
        let answered = try await clientSession([Policy("gate", decide: { _ in .answer("5, from the policy") })]).reply(to: "Add.").collect()
        #expect(answered.text == "Read: 5, from the policy" && answered.summary?.toolCalls == [])
    }

    @Test func resultsAClientSendsPassThePolicyBeforeTheModelReadsThem() async throws {
        let call = ToolCall(id: "call_1", name: "add", arguments: #"{"a": 2, "b": 3}"#)
        let redactor = Policy("redactor", result: { $0.call.name == "add" ? $0.content.replacingOccurrences(of: "secret", with: "[gone]") : nil })
        let session = clientSession([redactor])
        session.history = [ChatMessage(.user, "Add."), ChatMessage(.assistant, "", toolCalls: [call]),
                           ChatMessage(.tool, "5 and a secret", toolCallID: "call_1")]
        let reply = try await session.replyToToolResults().collect()
        #expect(reply.text == "Read: 5 and a [gone]", "\(reply.text)")
        let withheld = clientSession([FailingResult()])
        withheld.history = session.history.prefix(3).map { $0 }
        withheld.history[2].content = "5 and a secret"
        let failed = try await withheld.replyToToolResults().collect()
        #expect(failed.text == "Read: error: the result was withheld: leaky failed on it (the plugin is disabled)", "\(failed.text)")
    }
}
