import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TideTestSupport

extension ChatServerTests {
    static func completionRequest(_ prompt: String, stream: Bool = false, extra: String = "") -> ByteBuffer {
        let text = String(data: try! JSONEncoder().encode(prompt), encoding: .utf8)!
        return ByteBuffer(string: #"{"model": "scripted", "prompt": \#(text), "stream": \#(stream)\#(extra)}"#)
    }

    /// `/v1/completions` gives the model the prompt alone, with no system prompt, and answers in
    /// OpenAI's `text_completion` shape, whole or streamed, echoing the prompt when asked.
    @Test func aTextCompletionContinuesThePromptAlone() async throws {
        let shown = ScriptedModel { messages in [messages.map { "\($0.role.rawValue): \($0.content)" }.joined(separator: " | ")] }
        try await withServer(shown, configure: { $0.systemPrompt = "Be brief." }) { client in
            let response = try await client.execute(uri: "/v1/completions", method: .post, body: Self.completionRequest("Once upon"))
            #expect(response.status == .ok)
            let json = try Self.json(response)
            #expect(json["object"] as? String == "text_completion")
            #expect((json["id"] as? String)?.hasPrefix("cmpl-") == true)
            let choice = try #require((json["choices"] as? [[String: Any]])?.first)
            #expect(choice["text"] as? String == "user: Once upon", "the prompt alone, without the server's system prompt")
            #expect(choice["finish_reason"] as? String == "stop")
            #expect((json["usage"] as? [String: Any])?["completion_tokens"] as? Int == 1)

            let echoed = try Self.json(try await client.execute(uri: "/v1/completions", method: .post,
                                                                body: Self.completionRequest("Once upon", extra: #", "echo": true"#)))
            #expect((echoed["choices"] as? [[String: Any]])?.first?["text"] as? String == "Once uponuser: Once upon")

            let streamed = try await client.execute(uri: "/v1/completions", method: .post,
                                                    body: Self.completionRequest("Once upon", stream: true, extra: #", "echo": true, "stream_options": {"include_usage": true}"#))
            let chunks = try Self.chunks(streamed)
            #expect(chunks.allSatisfy { $0["object"] as? String == "text_completion" })
            let choices = chunks.compactMap { ($0["choices"] as? [[String: Any]])?.first }
            #expect(choices.compactMap { $0["text"] as? String }.joined() == "Once uponuser: Once upon")
            #expect(choices.compactMap { $0["finish_reason"] as? String } == ["stop"])
            #expect((chunks.last?["usage"] as? [String: Any])?["completion_tokens"] as? Int == 1)
        }
    }

    /// What a text completion cannot honour is refused, naming the field.
    @Test func textCompletionFieldsTideCannotHonourAreRefused() async throws {
        try await withServer { client in
            let cases: [(String, String, String?)] = [
                (#"{"model": "scripted", "prompt": [1, 2, 3]}"#, "prompt as token ids is not supported", "prompt"),
                (#"{"model": "scripted", "prompt": ["a", "b"]}"#, "prompt holds 2 prompts; send one per request", "prompt"),
                (#"{"model": "scripted", "prompt": "a", "suffix": "b"}"#, "suffix (text to insert before) is not supported", "suffix"),
                (#"{"model": "scripted", "prompt": "a", "best_of": 3}"#, "best_of must be 1", "best_of"),
                (#"{"model": "scripted", "prompt": "a", "logprobs": 21}"#, "logprobs must be a whole number from 0 to 20, not 21", "logprobs"),
                (#"{"model": "scripted", "prompt": "a", "temperature": -1}"#, "temperature must be ≥ 0", "temperature"),
                (#"{"model": "scripted", "prompt": "a\u0000b"}"#, "prompt holds a NUL character", "prompt"),
                (#"{"model": "scripted", "prompt": ""}"#, "prompt is empty; send the text to continue", "prompt"),
                (#"{"model": "scripted"}"#, "The body is not a completion request: 'prompt' is missing", nil),
            ]
            for (body, message, param) in cases {
                let response = try await client.execute(uri: "/v1/completions", method: .post, body: ByteBuffer(string: body))
                #expect(response.status == .badRequest, "\(body)")
                let error = try #require(try Self.json(response)["error"] as? [String: Any], "\(body)")
                #expect((error["message"] as? String ?? "").contains(message), "\(body): \(error)")
                #expect(error["param"] as? String == param, "\(body): \(error)")
            }
            let single = try await client.execute(uri: "/v1/completions", method: .post,
                                                  body: ByteBuffer(string: #"{"model": "scripted", "prompt": ["one"], "suffix": "", "best_of": 1}"#))
            #expect(single.status == .ok, "a list of one prompt, an empty suffix and best_of 1 are what Tide does anyway")
        }
    }

    /// A failure of the server's own is a 500 with an OpenAI-style body, whole or streamed.
    @Test func aFailureOfTheServersOwnIsA500WithAnOpenAIBody() async throws {
        var failing = ScriptedModel.echo()
        failing.startFailure = "the backend broke"
        try await withServer(failing) { client in
            for stream in [false, true] {
                for (uri, body) in [("/v1/chat/completions", Self.request("hi", stream: stream)),
                                    ("/v1/completions", Self.completionRequest("hi", stream: stream))] {
                    let response = try await client.execute(uri: uri, method: .post, body: body)
                    #expect(response.status == .internalServerError, "\(uri) stream \(stream)")
                    let error = try #require(try Self.json(response)["error"] as? [String: Any])
                    #expect(error["message"] as? String == "the backend broke")
                    #expect(error["type"] as? String == "server_error")
                }
            }
        }
    }
}
