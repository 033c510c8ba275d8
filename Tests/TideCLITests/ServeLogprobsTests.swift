import Foundation
import Testing
import TideTestSupport

extension CommandLineTests.ServeCommandTests {
    /// `tide serve`'s log-probabilities, read by the official `openai` client, equal llama.cpp's
    /// own for the same file and text within 1e-3 (Tests/TideTestSupport/Fixtures/reference_logprobs.py,
    /// on the library this process loaded): a prompt scored by `echo` with `max_tokens: 0`, and a
    /// reply's tokens, each given those before it. The server runs on this machine as it is (no
    /// `TIDE_MACHINE` noise) and without drafting, so that it decodes a prompt in one batch and
    /// each reply token alone, as the reference does. The reply is held to letters and spaces (a
    /// grammar, which acts after the scores are read), so that each token's text names it.
    @Test func logprobsEqualLlamaCppsOwn() async throws {
        let server = try await TideServer(["--draft", "off"], environment: ["TIDE_MACHINE": ""])
        let result = try #require(try server.python("""
            import json, sys, openai
            client = openai.OpenAI(base_url=sys.argv[1], api_key="unused")
            model, prompt = "smollm2-135m-instruct", "The tide comes in and the tide goes out. Sailors say that the sea"
            scored = client.completions.create(model=model, prompt=prompt, max_tokens=0, echo=True, logprobs=5)
            reply = client.completions.create(model=model, prompt=prompt, max_tokens=8, temperature=0, logprobs=3,
                extra_body={"grammar": "root ::= [a-zA-Z ]+"})
            print(json.dumps({"scored": scored.choices[0].logprobs.model_dump(), "scored_text": scored.choices[0].text,
                "completion_tokens": scored.usage.completion_tokens, "reply": reply.choices[0].logprobs.model_dump(),
                "reply_text": reply.choices[0].text, "reply_finish": reply.choices[0].finish_reason, "prompt": prompt}))
            """) as? [String: Any])
        let prompt = try #require(result["prompt"] as? String)
        let scored = try #require(result["scored"] as? [String: Any])
        let tokens = try #require(scored["tokens"] as? [String])
        #expect(result["scored_text"] as? String == prompt && result["completion_tokens"] as? Int == 0, "echo with max_tokens 0: \(result)")
        #expect(tokens.joined() == prompt)
        let offsets = try #require(scored["text_offset"] as? [Int])
        #expect(offsets == tokens.indices.map { tokens[..<$0].joined().unicodeScalars.count })
        let reference = try Self.referenceLogprobs(prompt: prompt, continuation: [], top: 5)
        #expect(reference.prompt == tokens, "Tide reads the prompt as llama.cpp tokenizes it")
        let tokenLogprobs = try #require(scored["token_logprobs"] as? [Any])
        #expect(tokenLogprobs.first is NSNull, "nothing scores the prompt's first token")
        try Self.expectEqual(Array(tokenLogprobs.dropFirst()), Array((scored["top_logprobs"] as? [Any] ?? []).dropFirst()),
                             reference.positions, what: "the prompt")

        let reply = try #require(result["reply"] as? [String: Any])
        // The model's end, when it ended the reply, comes last; its text is no token's of the reference's.
        let ended = result["reply_finish"] as? String == "stop" ? 1 : 0
        let replyTokens = Array(try #require(reply["tokens"] as? [String]).dropLast(ended))
        #expect(!replyTokens.isEmpty && replyTokens.joined() == result["reply_text"] as? String, "\(reply)")
        let continued = try Self.referenceLogprobs(prompt: prompt, continuation: replyTokens, top: 3)
        try Self.expectEqual(Array(try #require(reply["token_logprobs"] as? [Any]).dropLast(ended)),
                             Array(try #require(reply["top_logprobs"] as? [Any]).dropLast(ended)),
                             Array(continued.positions.suffix(replyTokens.count)), what: "the reply")
    }

    /// What reference_logprobs.py prints.
    struct ReferenceLogprobs: Decodable {
        struct Position: Decodable {
            var logprob: Double
            var top: [[LooseValue]]
        }

        var prompt: [String]
        var positions: [Position]
    }

    /// A text or a number, as the reference's pairs hold them.
    enum LooseValue: Decodable {
        case text(String), number(Double)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) { self = .text(text) } else { self = .number(try container.decode(Double.self)) }
        }
    }

    static func referenceLogprobs(prompt: String, continuation: [String], top: Int) throws -> ReferenceLogprobs {
        struct Request: Encodable {
            var prompt: String
            var continuation: [String]
            var top: Int
        }
        let data = try LlamaReference.run("reference_logprobs.py", request: Request(prompt: prompt, continuation: continuation, top: top))
        return try JSONDecoder().decode(ReferenceLogprobs.self, from: data)
    }

    /// Each position's log-probability, and the likeliest tokens' (as text to log-probability),
    /// within 1e-3 of the reference's; a token the reference ranks among the likeliest is among
    /// Tide's unless its log-probability ties with the last of them.
    static func expectEqual(_ logprobs: [Any], _ tops: [Any], _ reference: [ReferenceLogprobs.Position], what: String) throws {
        try #require(logprobs.count == reference.count && tops.count == reference.count,
                     "\(what): \(logprobs.count) positions scored, the reference \(reference.count)")
        for (index, expected) in reference.enumerated() {
            let logprob = try #require(logprobs[index] as? Double, "\(what), position \(index)")
            #expect(abs(logprob - expected.logprob) < 1e-3, "\(what), position \(index): \(logprob) against \(expected.logprob)")
            let top = try #require(tops[index] as? [String: Double], "\(what), position \(index)")
            #expect(top.count == expected.top.count, "\(what), position \(index): \(top)")
            let last = top.values.min() ?? 0
            for pair in expected.top {
                guard case .text(let text) = pair[0], case .number(let value) = pair[1] else { continue }
                if let found = top[text] {
                    #expect(abs(found - value) < 1e-3, "\(what), position \(index), \(text.debugDescription): \(found) against \(value)")
                } else {
                    #expect(abs(value - last) < 1e-3, "\(what), position \(index): \(text.debugDescription) missing from \(top)")
                }
            }
        }
    }
}

extension CommandLineTests.ServeCommandTests {
    /// The official `openai` client reads a chat's `logprobs` and `top_logprobs`, whole and
    /// streamed, and a text completion's in the legacy shape, streamed with `echo`: what holds
    /// for any greedy reply — the tokens spell the text, the chosen token is the likeliest (with
    /// the model's repetition penalty off: the log-probabilities are read before sampling), the
    /// likeliest come best first — and the stream carries the same tokens as the whole reply.
    @Test func theOpenAIClientReadsLogprobs() async throws {
        let server = try await TideServer()
        let result = try #require(try server.python("""
            import json, sys, openai
            client = openai.OpenAI(base_url=sys.argv[1], api_key="unused")
            model, messages = "smollm2-135m-instruct", [{"role": "user", "content": "Name three rivers."}]
            entry = lambda e: {"token": e.token, "bytes": e.bytes, "logprob": e.logprob,
                "top": [[t.token, t.logprob] for t in e.top_logprobs]}
            whole = client.chat.completions.create(model=model, messages=messages, max_tokens=12, temperature=0,
                logprobs=True, top_logprobs=3, extra_body={"repeat_penalty": 1})
            streamed, pieces = [], []
            for chunk in client.chat.completions.create(model=model, messages=messages, max_tokens=12, temperature=0,
                    logprobs=True, top_logprobs=3, stream=True, extra_body={"repeat_penalty": 1}):
                for choice in chunk.choices:
                    if choice.delta.content: pieces.append(choice.delta.content)
                    if choice.logprobs: streamed += [entry(e) for e in choice.logprobs.content]
            plain = client.chat.completions.create(model=model, messages=messages, max_tokens=2)
            prompt, text_tokens, text, text_finish = "Rivers of Europe:", [], "", None
            for chunk in client.completions.create(model=model, prompt=prompt, max_tokens=6, temperature=0, echo=True,
                    logprobs=2, stream=True):
                for choice in chunk.choices:
                    text += choice.text
                    if choice.logprobs: text_tokens += choice.logprobs.tokens
                    if choice.finish_reason: text_finish = choice.finish_reason
            print(json.dumps({"content": whole.choices[0].message.content, "whole": [entry(e) for e in whole.choices[0].logprobs.content],
                "finish": whole.choices[0].finish_reason, "text_finish": text_finish,
                "streamed": streamed, "pieces": pieces, "plain": plain.choices[0].logprobs is None,
                "prompt": prompt, "text": text, "text_tokens": text_tokens}))
            """) as? [String: Any])
        let content = try #require(result["content"] as? String)
        let whole = try #require(result["whole"] as? [[String: Any]])
        #expect(!whole.isEmpty)
        // The model's end, when it ended the reply, comes last.
        let ended = result["finish"] as? String == "stop" ? 1 : 0
        #expect(whole.dropLast(ended).flatMap { $0["bytes"] as? [UInt8] ?? [] } == Array(content.utf8),
                "the tokens spell the message: \(whole)")
        for entry in whole {
            let top = try #require(entry["top"] as? [[Any]])
            let values = top.compactMap { $0[1] as? Double }
            #expect(top.count == 3 && values == values.sorted(by: >) && values.allSatisfy { $0 <= 0 }, "\(entry)")
            #expect(top.first?[0] as? String == entry["token"] as? String && values.first == entry["logprob"] as? Double,
                    "a greedy reply's token is the likeliest: \(entry)")
        }
        let streamed = try #require(result["streamed"] as? [[String: Any]])
        #expect(streamed.map { $0["token"] as? String } == whole.map { $0["token"] as? String }, "streamed as whole")
        for (one, other) in zip(streamed, whole) {
            #expect(abs((one["logprob"] as? Double ?? 1) - (other["logprob"] as? Double ?? 0)) < 1e-3)
        }
        #expect((result["pieces"] as? [String])?.joined() == content)
        #expect(result["plain"] as? Bool == true, "no log-probabilities unless asked for")
        let text = try #require(result["text"] as? String)
        #expect(text.hasPrefix(try #require(result["prompt"] as? String)))
        let textEnded = result["text_finish"] as? String == "stop" ? 1 : 0
        #expect((result["text_tokens"] as? [String])?.dropLast(textEnded).joined() == text, "the echo's tokens, then the reply's, spell the text")
    }
}

extension CommandLineTests.ServeCommandTests {
    /// EleutherAI's lm-evaluation-harness scores the shipped multiple-choice task
    /// (Benchmarks/lm-eval) through `tide serve` — its `local-completions` model, log-likelihoods
    /// from `/v1/completions` with `echo` and `logprobs`, tokens from the server's `/tokenize` — and
    /// every choice's log-likelihood, and so the accuracy, is llama.cpp's own for the same text
    /// (scripts/lm-eval.sh, on the first questions; the server on this machine as it is).
    @Test func theEvaluationHarnessScoresThroughTide() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/lm-eval.sh")
        let result = try TideProcess.run([script.path, "--limit", "3", "--tide", TideProcess.executable.path],
                                         environment: ["TIDE_MACHINE": ""], program: URL(fileURLWithPath: "/bin/bash"))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let last = try #require(result.stdout.split(separator: "\n").last, "\(result.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any], "\(result.stdout)")
        #expect(summary["items"] as? Int == 3)
        #expect(summary["harness_accuracy"] as? Double == summary["reference_accuracy"] as? Double, "\(summary)")
        #expect((summary["largest_difference"] as? Double ?? 1) < 1e-3, "\(summary)")
    }
}
