import Foundation
import Testing
import TideTestSupport

extension CommandLineTests.ServeCommandTests {
    /// llama-server's tokenizer endpoints answer with the served model's own tokens and prompt:
    /// `/tokenize` (with pieces, whose bytes spell the text; control tokens' text read as such
    /// unless told not to), `/detokenize` back to the text, `/apply-template` giving the prompt a
    /// chat completion is given (its tokens are the completion's prompt tokens, tools and the
    /// server's system prompt included), `/tokenizer_info`; in vLLM's field names too. Bad input
    /// gets a 400 naming the field, and the endpoints sit behind `--api-key` like the rest.
    @Test func tokenizerEndpointsShowTheModelsOwnTokens() async throws {
        let server = try await TideServer(["--max-characters", "2000", "--api-key", "k"])
        func post(_ path: String, _ body: String) async throws -> (status: Int, json: [String: Any]) {
            let (status, json, _) = try await server.send("POST", path, body: Data(body.utf8), key: "k")
            return (status, json)
        }
        let text = "Tide: <|im_start|> waves 🌊 and naïve sailors"
        let pieces = try #require(try await post("tokenize", #"{"content": "\#(text)", "with_pieces": true}"#).json["tokens"] as? [[String: Any]])
        let bytes = pieces.flatMap { piece -> [UInt8] in
            if let text = piece["piece"] as? String { return Array(text.utf8) }
            return (piece["piece"] as? [Int] ?? []).map(UInt8.init)
        }
        #expect(bytes == Array(text.utf8), "the pieces spell the text: \(pieces)")
        #expect(pieces.contains { $0["piece"] is [Int] }, "a piece that is part of a character comes as bytes: \(pieces)")
        let ids = pieces.compactMap { $0["id"] as? Int }
        let literal = try #require(try await post("tokenize", #"{"content": "\#(text)", "parse_special": false}"#).json["tokens"] as? [Int])
        #expect(literal.count > ids.count, "the control token's text read as text is several tokens")
        let vLLM = try await post("tokenize", #"{"prompt": "\#(text)", "add_special_tokens": false}"#)
        #expect(vLLM.json["tokens"] as? [Int] == ids)
        let back = try await post("detokenize", #"{"tokens": \#(ids)}"#).json
        #expect(back["content"] as? String == text && back["prompt"] as? String == text)

        let question = #"{"role": "user", "content": "What is the capital of France?"}"#
        let called = #"{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "capital", "arguments": "{\"country\": \"France\"}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "Paris"}"#
        let tools = #"[{"type": "function", "function": {"name": "capital", "parameters": {"type": "object", "properties": {"country": {"type": "string"}}}}}]"#
        // Tools offered, and none with an earlier call and its result in the conversation: each as the model gets it.
        for (messages, extra) in [("[\(question)]", ""), ("[\(question)]", #", "tools": \#(tools)"#), ("[\(question), \(called)]", "")] {
            let prompt = try #require(try await post("apply-template", #"{"messages": \#(messages)\#(extra)}"#).json["prompt"] as? String)
            #expect(prompt.contains("What is the capital of France?") && prompt.contains("You are a helpful assistant"),
                    "the server's system prompt is the model's: \(prompt)")
            #expect(prompt.contains("\"capital\"") == (!extra.isEmpty || messages.contains("c1")), "tools offered and calls made are in the prompt: \(prompt)")
            let encoded = String(decoding: try JSONEncoder().encode(prompt), as: UTF8.self)
            let tokens = try #require(try await post("tokenize", #"{"content": \#(encoded)}"#).json["tokens"] as? [Int])
            let completion = try await post("v1/chat/completions", #"{"model": "m", "max_tokens": 1, "messages": \#(messages)\#(extra)}"#)
            #expect((completion.json["usage"] as? [String: Any])?["prompt_tokens"] as? Int == tokens.count,
                    "the template's prompt is the one the completion was given: \(completion.json)")
        }
        let info = try await server.send("GET", "tokenizer_info", key: "k").json
        #expect(info["eos_token"] as? String == "<|im_end|>" && info["model_max_length"] as? Int ?? 0 > 0, "\(info)")

        let refusals: [(String, String, String, String?)] = [
            ("detokenize", #"{"tokens": [1, 49152]}"#, "tokens[1] is 49152, not a token id of this model (0 to 49151)", "tokens[1]"),
            ("detokenize", #"{"tokens": [-1]}"#, "tokens[0] is -1, not a token id", "tokens[0]"),
            ("tokenize", #"{"content": "\#(String(repeating: "a", count: 2001))"}"#, "content holds 2001 characters, over this server's limit of 2000",
             "content"),
            ("tokenize", #"{"with_pieces": true}"#, "content is missing", "content"),
            ("tokenize", #"{"content": 5}"#, "The body is not a /tokenize request", nil),
            ("apply-template", #"{"messages": []}"#, "messages must hold at least one message", "messages"),
            ("apply-template", #"{"messages": [{"role": "wizard", "content": "x"}]}"#, "messages[0].role 'wizard' is not supported",
             "messages[0].role"),
        ]
        for (path, body, message, param) in refusals {
            let (status, json) = try await post(path, body)
            let error = json["error"] as? [String: Any]
            #expect(status == 400, "\(path) \(body): \(json)")
            #expect((error?["message"] as? String)?.contains(message) == true, "\(path) \(body): \(json)")
            #expect(error?["param"] as? String == param, "\(path) \(body): \(json)")
        }
        let unauthorised = try await server.send("POST", "tokenize", body: Data(#"{"content": "a"}"#.utf8))
        #expect(unauthorised.status == 401)
        #expect(try await server.send("GET", "health").status == 200, "the server goes on")
    }
}
