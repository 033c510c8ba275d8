import Foundation
import Testing
import TideTestSupport

extension CommandLineTests.ServeCommandTests {
    /// Mistakes on the wire get a 400 that names the field and says what to send; unsupported
    /// features are refused, not ignored.
    @Test func wireMistakesGetFieldSpecificErrors() async throws {
        let server = try await TideServer()
        let model = #""model": "smollm2-135m-instruct""#
        let hi = #""messages": [{"role": "user", "content": "Hi"}]"#
        let cases: [(String, String, String?)] = [
            (#"{\#(model), \#(hi), "max_tokens": 1.5}"#, "max_tokens must be a whole number, not 1.5", "max_tokens"),
            (#"{\#(model), \#(hi), "max_tokens": 1e20}"#, "max_tokens must be a whole number from", "max_tokens"),
            (#"{\#(model), \#(hi), "top_k": 2.5}"#, "top_k must be a whole number, not 2.5", "top_k"),
            (#"{\#(model), "messages": [{"role": "user", "content": "a\ud800b"}]}"#, "at messages[0].content: not a valid string", nil),
            (#"{\#(model), \#(hi), "stop": "\udc00"}"#, "at stop: not a valid string", nil),
            (#"{\#(model), \#(hi), "presence_penalty": "x"}"#, "presence_penalty must be a number from -2 to 2, not 'x'", "presence_penalty"),
            (#"{\#(model), \#(hi), "frequency_penalty": []}"#, "frequency_penalty must be a number from -2 to 2, not a list", "frequency_penalty"),
            (#"{\#(model), \#(hi), "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "not": {}}}}]}"#,
             "tools[0].function.parameters is not a schema Tide can enforce", "tools[0].function.parameters"),
            (#"{\#(model), \#(hi), "functions": [{"name": "f"}]}"#, "send tools and tool_choice instead", "functions"),
            (#"{\#(model), \#(hi), "logit_bias": {"50256": -100}}"#, "logit_bias must be a token id of this model, from 0 to 49151, not 50256", "logit_bias"),
            (#"{\#(model), \#(hi), "max_tokens": }"#, "not valid JSON: ", nil),
            // Numbers past 2^31 once killed the server converting to llama.cpp's 32-bit integers.
            (#"{\#(model), \#(hi), "top_k": 2147483648}"#, "top_k must be a whole number from 0 to 2147483647, not 2147483648",
             "top_k"),
            (#"{\#(model), \#(hi), "max_tokens": 4294967296}"#, "max_tokens must be a whole number from 0 to 2147483647",
             "max_tokens"),
            (#"{\#(model), \#(hi), "temperature": 1e300}"#, "temperature must be ≥ 0 (0 picks the likeliest token), at most 3.4e+38, not 1e+300", "temperature"),
            (#"{\#(model), \#(hi), "logprobs": true, "top_logprobs": 21}"#, "top_logprobs must be a whole number from 0 to 20, not 21",
             "top_logprobs"),
            (#"{\#(model), \#(hi), "top_logprobs": 2}"#, "top_logprobs needs logprobs: true", "top_logprobs"),
            // A NUL once silently ended the message there.
            (#"{\#(model), "messages": [{"role": "user", "content": "aaaa\u0000 bbbb"}]}"#,
             "messages[0].content holds a NUL character (U+0000)", "messages[0].content"),
        ]
        for (body, message, param) in cases {
            let (status, json) = try await server.post(body)
            let error = json["error"] as? [String: Any]
            #expect(status == 400, "\(body)")
            #expect((error?["message"] as? String ?? "").contains(message), "\(body): \(json)")
            #expect(error?["param"] as? String == param, "\(body): \(json)")
        }
        var invalidUTF8 = Data(#"{\#(model), "messages": [{"role": "user", "content": "ab"}]}"#.utf8)
        invalidUTF8[invalidUTF8.count - 5] = 0xFF
        let (status, json, _) = try await server.send("POST", "v1/chat/completions", body: invalidUTF8)
        #expect(status == 400)
        #expect(((json["error"] as? [String: Any])?["message"] as? String ?? "").contains("Invalid UTF-8"), "\(json)")
        let health = try await server.send("GET", "health")
        #expect(health.status == 200, "the server still answers after every bad request")
        let exact = try await server.post(#"{\#(model), \#(hi), "max_tokens": 2e0, "seed": 1.0e1}"#)
        #expect(exact.status == 200, "a whole number written with an exponent is read exactly: \(exact.json)")
        #expect((exact.json["usage"] as? [String: Any])?["completion_tokens"] as? Int ?? 99 <= 2)
    }

    /// Known paths asked with another method get a JSON 405 with `Allow`; unknown paths a JSON 404.
    @Test func wrongMethodsAndUnknownPathsGetJSONErrors() async throws {
        let server = try await TideServer()
        for (method, path, allow) in [("HEAD", "v1/models", "GET"), ("OPTIONS", "v1/chat/completions", "POST"), ("PUT", "health", "GET"),
                                      ("DELETE", "v1/models", "GET"), ("GET", "v1/chat/completions", "POST")] {
            let (status, json, headers) = try await server.send(method, path)
            #expect(status == 405, "\(method) /\(path)")
            #expect(headers["Allow"] as? String == allow, "\(method) /\(path): \(headers)")
            if method != "HEAD" {
                let error = json["error"] as? [String: Any]
                #expect(error?["code"] as? String == "method_not_allowed", "\(method) /\(path): \(json)")
                #expect((error?["message"] as? String ?? "").contains("use \(allow)"), "\(json)")
            }
        }
        let (status, json, _) = try await server.send("GET", "v2/nothing")
        #expect(status == 404)
        let message = (json["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(message.contains("There is no /v2/nothing here") && message.contains("POST /v1/chat/completions"), "\(json)")
    }

    /// Refused before anything starts (a model that does not exist and a free port keep a server
    /// that wrongly started from staying up).
    @Test func anEmptyAliasIsRefused() throws {
        let result = try TideProcess.run(["serve", "--alias", "", "--model", "/nonexistent/model.gguf", "--port", "\(LoopbackPort.free())"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--alias must not be empty"), "\(result.stderr)")
    }
}
