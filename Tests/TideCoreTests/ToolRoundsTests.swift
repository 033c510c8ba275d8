import Testing
import TideCore
import TideTestSupport

/// The rounds of a turn that calls tools, on a scripted backend whose "model" writes calls as
/// `<call>NAME ARGUMENTS</call>`: the pipeline's logic, whatever a real model's format.
@Suite struct ToolRoundsTests {
    struct Reader: ToolCallReader {
        let marker = "<call>"
        func prompt(_ messages: [ChatMessage], offering tools: [ToolDefinition]) -> [ChatMessage] { messages }
        func written(_ calls: [ToolCall]) -> String { calls.map { "<call>\($0.name) \($0.arguments)</call>" }.joined() }
        func calls(in text: String) throws(ToolFailure) -> [ToolCall] {
            var calls: [ToolCall] = []
            for part in text.split(separator: "<call>") {
                guard let end = part.firstRange(of: "</call>"), let space = part.firstIndex(of: " ") else {
                    throw ToolFailure("unreadable call: \(part)")
                }
                calls.append(ToolCall(id: "", name: String(part[..<space]), arguments: String(part[part.index(after: space)..<end.lowerBound])))
            }
            return calls
        }
        func callGrammar(for tools: [ToolDefinition], choice: ToolChoice, parallel: Bool) throws(ToolFailure) -> String { "" }
        var lazyTrigger: String { "" }
    }

    /// A hook with tools: `add` sums `a` and `b`; `fail` throws; `big` returns 20,000 characters.
    final class Adder: ChatHook, ToolProvider, Sendable {
        let name: String
        let points: Set<HookPoint> = []
        init(name: String = "adder") { self.name = name }
        var tools: [ToolDefinition] {
            ["add", "fail", "big"].map { ToolDefinition(name: $0, description: $0, parameters: #"{"type": "object"}"#) }
        }
        func runTool(_ call: ToolCall) throws -> String {
            switch call.name {
            case "add":
                let numbers = call.arguments.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
                return "\(numbers.reduce(0, +))"
            case "fail": throw ToolFailure("no luck")
            default: return String(repeating: "x", count: 20_000)
            }
        }
    }

    func backend(calling call: String) -> ScriptedBackend {
        let backend = ScriptedBackend(contextSize: 65_536) { messages in
            messages.last?.role == .tool ? ["The sum is ", "5."] : ["Let me add. ", "<ca", "ll>", call, "</call>"]
        }
        backend.toolCallReader = Reader()
        return backend
    }

    @Test func aCallIsHeldBackRunAndAnsweredInTheSameTurn() async throws {
        let backend = backend(calling: #"add {"a": 2, "b": 3}"#)
        let session = ChatSession(backend: backend, hooks: [Adder()])
        let reply = try await session.reply(to: "What is 2 + 3?").collect()
        #expect(reply.text == "Let me add. The sum is 5.")
        #expect(reply.toolCalls.map(\.name) == ["add"])
        #expect(reply.toolResults.map(\.content) == ["5"] && reply.toolResults.allSatisfy { !$0.failed })
        let statistics = try #require(reply.summary?.statistics)
        #expect(statistics.toolRounds == 1 && statistics.toolResults.count == 1)
        #expect(session.history.map(\.role) == [.user, .assistant, .tool, .assistant])
        #expect(session.history[1].content == "Let me add. " && session.history[1].toolCalls.map(\.name) == ["add"])
        #expect(session.history[2].content == "5" && session.history[2].toolCallID == session.history[1].toolCalls.first?.id)
        #expect(session.history[3].content == "The sum is 5." && session.history[3].toolCalls.isEmpty)
        // The second prompt carried the call and its result.
        #expect(backend.receivedPrompts.last?.suffix(2).map(\.role) == [.assistant, .tool])
        // The same call made again, in this conversation and in another, has an id of its own.
        _ = try await session.reply(to: "And again?").collect()
        let other = ChatSession(backend: backend, hooks: [Adder()])
        _ = try await other.reply(to: "What is 2 + 3?").collect()
        let ids = (session.history + other.history).flatMap(\.toolCalls).map(\.id)
        #expect(ids.count == 3 && Set(ids).count == 3 && ids.allSatisfy { $0.hasPrefix("call_") && $0.count == 29 }, "\(ids)")
    }

    @Test func aFailingToolAndAHugeResultAreResultsThatSaySo() async throws {
        for (call, check) in [("fail {}", { (result: ToolResult) in result.failed && result.content == "error: no luck" }),
                              ("big {}", { (result: ToolResult) in !result.failed && result.content.hasSuffix("are shown]")
                                  && result.content.utf8.count < 16_500 })] {
            let session = ChatSession(backend: backend(calling: call), hooks: [Adder()])
            let reply = try await session.reply(to: "Go.").collect()
            let result = try #require(reply.toolResults.first)
            #expect(check(result), "\(result.content.prefix(80))")
            #expect(reply.summary?.stopReason == .endOfGeneration)
        }
    }

    /// `max-tool-result` sets where a result is cut.
    @Test func theResultLimitIsAParameter() async throws {
        let session = ChatSession(backend: backend(calling: "big {}"), hooks: [Adder()])
        session.parameters.maxToolResult = 1000
        let reply = try await session.reply(to: "Go.").collect()
        #expect(reply.toolResults.first?.content == String(repeating: "x", count: 1000)
                + "\n[the result was cut: 20000 bytes, of which the first 1000 are shown]")
    }

    /// A result larger than the room the context has left is cut to fit it, with room kept for
    /// the answer, and says so: the turn goes on instead of failing for want of context.
    @Test func aResultIsCutToTheRoomTheContextHasLeft() async throws {
        let backend = ScriptedBackend(contextSize: 4096) { messages in
            messages.last?.role == .tool ? ["Done."] : ["<call>big {}</call>"]
        }
        backend.toolCallReader = Reader()
        let session = ChatSession(backend: backend, hooks: [Adder()])
        session.parameters.maxTokens = 200
        let reply = try await session.reply(to: "Go.").collect()
        #expect(reply.text == "Done.")
        let result = try #require(reply.toolResults.first)
        #expect(result.content.hasPrefix("xxxx") && result.content.contains("\n[the result was cut to fit the context: 20000 bytes, of which the first "),
                "\(result.content.suffix(100))")
        // The scripted backend counts a character as a token: the prompt fits with 200 to spare, and barely more.
        let prompt = try #require(backend.receivedPrompts.last).reduce(0) { $0 + $1.content.count }
        #expect(prompt <= 4096 - 200 && prompt > 4096 - 200 - 10, "\(prompt) \(backend.receivedPrompts.last!.map { ($0.role, $0.content.count) })")
        #expect(session.history[2].content == result.content, "the model saw what the result event said")
    }

    @Test func roundsAreBoundedAndThenToolsAreNotOffered() async throws {
        let backend = ScriptedBackend { _ in ["<call>add {\"a\": 1}</call>"] }
        backend.toolCallReader = Reader()
        let session = ChatSession(backend: backend, hooks: [Adder()])
        session.parameters.maxToolRounds = 2
        let reply = try await session.reply(to: "Loop.").collect()
        #expect(reply.toolCalls.count == 2)
        #expect(reply.summary?.statistics.toolRounds == 2)
        // The third round was not offered tools: its call is text like any other.
        #expect(reply.text == "<call>add {\"a\": 1}</call>")
    }

    @Test func aCallOfAToolNoHookRunsEndsTheTurnWithTheCall() async throws {
        let session = ChatSession(backend: backend(calling: #"weather {"city": "Oslo"}"#), hooks: [Adder()])
        let reply = try await session.reply(to: "Weather?").collect()
        #expect(reply.toolResults.isEmpty)
        #expect(reply.summary?.toolCalls.map(\.name) == ["weather"])
        #expect(session.history.last?.toolCalls.map(\.name) == ["weather"])
    }

    /// A server's client runs the calls and sends the results: the session answers them, and
    /// its own hooks' tools give way to the tools the parameters bring.
    @Test func theCallersToolsReplaceTheHooksAndItsResultsAreAnswered() async throws {
        let session = ChatSession(backend: backend(calling: #"weather {"city": "Oslo"}"#), hooks: [Adder()])
        session.parameters.tools = [ToolDefinition(name: "weather", description: "", parameters: #"{"type": "object"}"#)]
        let reply = try await session.reply(to: "Weather?").collect()
        #expect(reply.toolResults.isEmpty && reply.summary?.toolCalls.map(\.name) == ["weather"])
        let call = try #require(reply.summary?.toolCalls.first)
        await #expect(throws: ChatSessionError.noToolResults) { _ = try await session.replyToToolResults().collect() }
        session.history.append(ChatMessage(.tool, "cold", toolCallID: call.id))
        let answer = try await session.replyToToolResults().collect()
        #expect(answer.text == "The sum is 5.")
        #expect(session.history.map(\.role) == [.user, .assistant, .tool, .assistant])
        #expect(session.history.last?.content == "The sum is 5.")
    }

    /// A call cut by max-tokens, even before its marker is whole, is never shown: the summary says why.
    @Test func aCallCutShortIsNeitherShownNorRun() async throws {
        for cut in [2, 4] {
            let session = ChatSession(backend: backend(calling: #"add {"a": 2}"#), hooks: [Adder()])
            session.parameters.maxTokens = cut
            let reply = try await session.reply(to: "Add.").collect()
            #expect(reply.text == "Let me add. ", "\(cut): \(reply.text)")
            #expect(reply.toolResults.isEmpty && reply.summary?.toolCalls == [])
            #expect(reply.summary?.toolCallProblem == "the reply ended (max-tokens) inside a tool call")
        }
    }

    @Test func twoPluginsWithOneToolNameAreRefused() async throws {
        let session = ChatSession(backend: backend(calling: "add {}"), hooks: [Adder(name: "one"), Adder(name: "two")])
        await #expect(throws: ToolSelectionError.self) { _ = try await session.reply(to: "Hi").collect() }
        #expect(session.history.isEmpty)
    }

    /// `--tool` offers only the tools it names: a call of another is not run; a name no plugin
    /// declares is refused, with the tools there are.
    @Test func onlyTheToolsNamedAreOffered() async throws {
        let session = ChatSession(backend: backend(calling: #"add {"a": 2}"#), hooks: [Adder()])
        session.parameters.toolNames = ["fail"]
        let reply = try await session.reply(to: "Add.").collect()
        #expect(reply.toolResults.isEmpty && reply.summary?.toolCalls.map(\.name) == ["add"])
        session.parameters.toolNames = ["nope"]
        await #expect(throws: ToolSelectionError.unknown("nope", known: ["add", "fail", "big"])) {
            _ = try await session.reply(to: "Add.").collect()
        }
    }

    @Test func toolsNeedABackendThatCanOfferThemAndNoFormat() async throws {
        let plain = ChatSession(backend: ScriptedBackend(["Hi"]), hooks: [Adder()])
        await #expect(throws: ToolsUnavailable.backend) { _ = try await plain.reply(to: "Hi").collect() }
        plain.parameters.toolChoice = .none
        #expect(try await plain.reply(to: "Hi").collect().text == "Hi")
        let formatted = ChatSession(backend: backend(calling: "add {}"), hooks: [Adder()])
        formatted.parameters.format = ReplyFormat(kind: .json, definition: "", grammar: "root ::= \"{}\"")
        await #expect(throws: ToolsUnavailable.withFormat) { _ = try await formatted.reply(to: "Hi").collect() }
    }
}
