import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TideCore
import TideLua
import TideProvider
import TideServe
import TideTestSupport

/// `tide serve`'s HTTP side in process, on scripted models: no model file, a live server on a
/// loopback port, asked by AsyncHTTPClient. The same server on the real model is tested through the `tide` binary.
@Suite struct ChatServerTests {
    /// A server on `model`'s batch of `sequences`, with `configure` applied to its configuration.
    func withServer<Value>(_ model: ScriptedModel = .echo(), sequences: Int = 2,
                           configure: (inout ServeConfiguration) throws -> Void = { _ in },
                           _ test: @Sendable (any TestClientProtocol) async throws -> Value) async throws -> Value
    {
        var configuration = ServeConfiguration(modelName: model.name)
        try configure(&configuration)
        let batch = try #require(try model.makeBatch(ModelSetup(), sequences: sequences, contextSize: nil))
        let server = try ChatServer(batch: batch, configuration: configuration)
        return try await server.application(host: "127.0.0.1", port: 0).test(.ahc(.http), test)
    }

    static func request(_ content: String, stream: Bool = false, extra: String = "") -> ByteBuffer {
        let message = String(data: try! JSONEncoder().encode(content), encoding: .utf8)!
        return ByteBuffer(string: #"{"model": "scripted", "messages": [{"role": "user", "content": \#(message)}], "stream": \#(stream)\#(extra)}"#)
    }

    static func json(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(String(buffer: response.body).utf8)) as? [String: Any])
    }

    /// The chunks of a streamed reply, checked to end with `[DONE]`.
    static func chunks(_ response: TestResponse) throws -> [[String: Any]] {
        let events = String(buffer: response.body).components(separatedBy: "\n\n").filter { !$0.isEmpty }
        #expect(events.last == "data: [DONE]")
        return try events.dropLast().map { event in
            try #require(try JSONSerialization.jsonObject(with: Data(event.dropFirst("data: ".count).utf8)) as? [String: Any])
        }
    }

    /// The text of a streamed reply: its deltas, joined.
    static func streamedText(_ response: TestResponse) throws -> String {
        try chunks(response).compactMap { (($0["choices"] as? [[String: Any]])?.first?["delta"] as? [String: Any])?["content"] as? String }
            .joined()
    }

    static func errorMessage(_ response: TestResponse) throws -> String {
        try #require((try json(response)["error"] as? [String: Any])?["message"] as? String)
    }

    @Test func aWholeReplyCarriesTheTextTheStopReasonAndUsage() async throws {
        try await withServer { client in
            let response = try await client.execute(uri: "/v1/chat/completions", method: .post, body: Self.request("hello there"))
            #expect(response.status == .ok)
            let json = try Self.json(response)
            let choice = try #require((json["choices"] as? [[String: Any]])?.first)
            #expect((choice["message"] as? [String: Any])?["content"] as? String == "You said: hello there")
            #expect(choice["finish_reason"] as? String == "stop")
            let usage = try #require(json["usage"] as? [String: Any])
            #expect(usage["completion_tokens"] as? Int == 4)
            #expect((usage["prompt_tokens_details"] as? [String: Int])?["cached_tokens"] == 0)
            #expect(json["model"] as? String == "scripted")
        }
    }

    /// As llama-server does, any model name is taken for the served model, unless
    /// `--strict-model`; and a request without a system message gets the server's.
    @Test func anyModelNameAndTheServersSystemPrompt() async throws {
        let firstMessage = ScriptedModel { messages in ["\(messages.first!.role.rawValue): \(messages.first!.content)"] }
        let other = ByteBuffer(string: #"{"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}"#)
        try await withServer(firstMessage, configure: { $0.systemPrompt = "Be brief." }) { client in
            let response = try await client.execute(uri: "/v1/chat/completions", method: .post, body: other)
            #expect(response.status == .ok)
            let json = try Self.json(response)
            #expect(json["model"] as? String == "scripted", "the reply names the model that answered")
            let content = ((json["choices"] as? [[String: Any]])?.first?["message"] as? [String: Any])?["content"] as? String
            #expect(content == "system: Be brief.")
            let own = ByteBuffer(string: #"{"model": "scripted", "messages": [{"role": "system", "content": "Mine."}, {"role": "user", "content": "hi"}]}"#)
            let kept = try Self.json(try await client.execute(uri: "/v1/chat/completions", method: .post, body: own))
            #expect(((kept["choices"] as? [[String: Any]])?.first?["message"] as? [String: Any])?["content"] as? String == "system: Mine.")
        }
        try await withServer(configure: { $0.strictModel = true }) { client in
            let response = try await client.execute(uri: "/v1/chat/completions", method: .post, body: other)
            #expect(response.status == .notFound)
            #expect(try Self.errorMessage(response) == "The model 'gpt-4o' does not exist; this server serves 'scripted'")
        }
    }

    @Test func aStreamedReplyIsServerSentEventsEndingWithDone() async throws {
        try await withServer { client in
            let response = try await client.execute(uri: "/v1/chat/completions", method: .post,
                                                    body: Self.request("one two", stream: true))
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/event-stream")
            let chunks = try Self.chunks(response)
            #expect(try Self.streamedText(response) == "You said: one two")
            #expect(chunks.compactMap { ($0["choices"] as? [[String: Any]])?.first?["finish_reason"] as? String } == ["stop"])
        }
    }

    @Test func everyRequestRunsThePluginsInFreshInstances() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tide-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Counts the tokens of its request: a fresh instance starts at zero each time.
        try """
            local seen = 0
            return { on_token = function(token) if token.text == '' then return nil end; seen = seen + 1; return token.text:upper() .. seen end }
            """.write(to: folder.appendingPathComponent("counter.lua"), atomically: true, encoding: .utf8)
        let source = try PluginSource(spec: PluginSpec(parsing: "counter"), locator: PluginLocator(directories: [folder]))
        try await withServer(configure: { $0.hooks = HookFactory { log in [try source.instantiate(limits: LuaLimits(), log: log)] } }) { client in
            for _ in 0..<2 {
                let response = try await client.execute(uri: "/v1/chat/completions", method: .post, body: Self.request("hi"))
                let choice = try #require((try Self.json(response)["choices"] as? [[String: Any]])?.first)
                #expect((choice["message"] as? [String: Any])?["content"] as? String == "YOU1 SAID:2 HI3")
            }
        }
    }

    /// A plugin that takes text back works per request, and nothing it took back is streamed.
    @Test func textTakenBackNeverReachesTheStream() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tide-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try """
            return {
              rewind_window = 16,
              should_stop = function(reply)
                local at = reply.text:find(" secret", 1, true)
                if at then tide.rewind(at) end
              end,
            }
            """.write(to: folder.appendingPathComponent("unsay.lua"), atomically: true, encoding: .utf8)
        let source = try PluginSource(spec: PluginSpec(parsing: "unsay"), locator: PluginLocator(directories: [folder]))
        try await withServer(configure: { $0.hooks = HookFactory { log in [try source.instantiate(limits: LuaLimits(), log: log)] } }) { client in
            let response = try await client.execute(uri: "/v1/chat/completions", method: .post,
                                                    body: Self.request("the secret plan", stream: true))
            let body = String(buffer: response.body)
            #expect(!body.contains("secret"), "\(body)")
            #expect(try Self.streamedText(response) == "You said: the plan")
        }
    }

    @Test func requestsBeyondTheSequencesWaitTheirTurn() async throws {
        let model = ScriptedModel.echo(tokenDelay: .milliseconds(20))
        try await withServer(model, sequences: 2) { client in
            let texts = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<5 {
                    group.addTask {
                        let response = try await client.execute(uri: "/v1/chat/completions", method: .post,
                                                                body: Self.request("request \(index)"))
                        let choice = try #require((try Self.json(response)["choices"] as? [[String: Any]])?.first)
                        return try #require((choice["message"] as? [String: Any])?["content"] as? String)
                    }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(texts == Set((0..<5).map { "You said: request \($0)" }))
            let health = try Self.json(try await client.execute(uri: "/health", method: .get))
            #expect(health["sequences"] as? Int == 2)
            #expect(health["busy"] as? Int == 0, "every sequence went back to the pool")
            #expect(health["waiting"] as? Int == 0)
        }
    }

    @Test func aPromptOverTheContextIsTheClientsError() async throws {
        try await withServer(.echo(contextSize: 64)) { client in
            let response = try await client.execute(uri: "/v1/chat/completions", method: .post,
                                                    body: Self.request(String(repeating: "long ", count: 40)))
            #expect(response.status == .badRequest)
            let error = try #require(try Self.json(response)["error"] as? [String: Any])
            #expect(error["code"] as? String == "context_length_exceeded")
            #expect((error["message"] as? String ?? "").contains("the context holds 64"), "\(error)")
        }
    }

    @Test func limitsAndTheKeyAreCheckedBeforeAnyWork() async throws {
        try await withServer(configure: {
            $0.apiKey = "sesame"
            $0.serverLimits = ServerLimits(maximumMessages: 1)
        }) { client in
            let health = try await client.execute(uri: "/health", method: .get)
            #expect(health.status == .ok, "/health needs no key")
            let anonymous = try await client.execute(uri: "/v1/chat/completions", method: .post, body: Self.request("hi"))
            #expect(anonymous.status == .unauthorized)
            let key: HTTPFields = [.authorization: "Bearer sesame"]
            let two = ByteBuffer(string: #"{"model": "scripted", "messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]}"#)
            let tooMany = try await client.execute(uri: "/v1/chat/completions", method: .post, headers: key, body: two)
            #expect(tooMany.status == .badRequest)
            #expect(try Self.errorMessage(tooMany).contains("--max-messages"))
            let wrongMethod = try await client.execute(uri: "/v1/chat/completions", method: .get, headers: key)
            #expect(wrongMethod.status == .methodNotAllowed)
            let fine = try await client.execute(uri: "/v1/chat/completions", method: .post, headers: key, body: Self.request("hi"))
            #expect(fine.status == .ok)
        }
    }

    @Test func aBodyThatIsNotARequestGetsA400ThatSaysWhy() async throws {
        try await withServer { client in
            let response = try await client.execute(uri: "/v1/chat/completions", method: .post, body: ByteBuffer(string: "{\"model\": "))
            #expect(response.status == .badRequest)
            #expect(try Self.errorMessage(response).contains("not valid JSON"))
        }
    }
}
