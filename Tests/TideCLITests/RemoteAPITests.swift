import Foundation
import Testing
import TideTestSupport

extension CommandLineTests {
    /// `--remote-api`: the commands speak Chat Completions, Anthropic's Messages API or OpenAI's
    /// Responses API to a server, shown against `tide serve`, which speaks all three. The words
    /// are certain where they are asserted: a logit bias writes "Yes", the grammar makes the
    /// call, and the server's plugin answers a tool's result by quoting it.
    @Suite struct RemoteAPITests {
        static let apis = ["chat", "messages", "responses"]

        func json(_ result: TideProcess.Result) throws -> [String: Any] {
            #expect(result.status == 0, "\(result.stderr)")
            return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
        }

        @Test(arguments: apis) func repliesCallsAndResultsTravelInEachAPI(api: String) async throws {
            let server = try await TideServer(["--plugin", try ServeMessagesTests.quoting()])
            let remote = ["--remote", server.url.absoluteString, "--remote-api", api, "--no-log", "--json"]
            let yes = try json(try TideProcess.run(["generate"] + remote + ["--max-tokens", "3", "--logit-bias", "Yes=100", "Say yes"]))
            #expect(yes["text"] as? String == "YesYesYes" && yes["stop_reason"] as? String == "max-tokens", "\(yes)")
            // The client's own tool (the calculator plugin), called by the server's model through
            // the grammar, run here, its result sent back in the API's shape and quoted.
            let called = try TideProcess.run(["generate"] + remote + ["--plugin", "calculator", "--tool-choice", "required", "What is 2+2?"])
            let reply = try json(called)
            #expect((reply["text"] as? String ?? "").hasPrefix("The tool said: "), "\(reply)")
            #expect(called.stderr.contains("tool calculate {"), "the call ran here: \(called.stderr)")
            let log = server.log(tail: 20_000)
            #expect(log.contains("calls for the client: calculate"), "\(log)")
        }

        @Test(arguments: apis) func aThinkingModelsReasoningComesApartInEachAPI(api: String) async throws {
            let server = try await TideServer(["--model", try ReasoningCommandTests.qwenThree().path, "--plugin", try ReasoningCommandTests.plugin()])
            let object = try json(try TideProcess.run(["generate", "--remote", server.url.absoluteString, "--remote-api", api, "--no-log",
                                                       "--json", "Capital of France?"]))
            #expect((object["reasoning"] as? String)?.trimmingCharacters(in: .whitespacesAndNewlines) == "Let me see.", "\(object)")
            #expect(object["text"] as? String == "Paris.", "\(object)")
        }

        @Test func aScriptIsReplayedThroughTheResponsesAPIAndFormatsAreRefusedWhereTheyHaveNoPlace() async throws {
            let server = try await TideServer()
            let script = "@max-tokens 3\n@logit-bias Yes=100\nuser: Say yes\nexpect: equals \"YesYesYes\"\n"
            let run = try TideProcess.run(["run", "--remote", server.url.absoluteString, "--remote-api", "responses", "--no-log", "-"],
                                          stdin: script)
            #expect(run.status == 0 && run.stdout.contains("1 passed, 0 failed"), "\(run.stdout)\n\(run.stderr)")
            let format = try TideProcess.run(["generate", "--remote", server.url.absoluteString, "--remote-api", "messages", "--no-log",
                                              "--format", "json", "Hi"])
            #expect(format.status != 0 && format.stderr.contains("cannot be asked for through the Messages API"), "\(format.stderr)")
            let unknown = try TideProcess.run(["generate", "--remote", server.url.absoluteString, "--remote-api", "grpc", "Hi"])
            #expect(unknown.status != 0 && unknown.stderr.contains("choose chat, messages, responses"), "\(unknown.stderr)")
        }
    }
}
