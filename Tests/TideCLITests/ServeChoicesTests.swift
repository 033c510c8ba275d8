import Foundation
import Testing
import TideTestSupport

extension CommandLineTests.ServeCommandTests {
    /// The official `openai` client reads `n` choices, whole and streamed, of a chat and of a text
    /// completion. The choices share the prompt's evaluation: on a fresh server, the first choice
    /// evaluates it and each other finds all of it but the last token in its cache (the server's
    /// metrics count them), with the same scores at the first position; the usage counts the
    /// prompt once and every choice's tokens. Sampled nearly uniformly (a temperature of 50 over
    /// six letters, under a grammar), three choices with seeds of their own are not one text.
    @Test func theOpenAIClientReadsSeveralChoices() async throws {
        let server = try await TideServer(["--metrics"])
        let result = try #require(try server.python("""
            import json, sys, urllib.request, openai
            from prometheus_client.parser import text_string_to_metric_families
            client = openai.OpenAI(base_url=sys.argv[1], api_key="unused")
            model, messages = "smollm2-135m-instruct", [{"role": "user", "content": "Write one word of six letters about the sea."}]
            flat = {"grammar": "root ::= [a-z]{6}", "top_k": 0, "top_p": 1, "min_p": 0}
            entry = lambda e: {"bytes": e.bytes, "top": {t.token: t.logprob for t in e.top_logprobs}}
            whole = client.chat.completions.create(model=model, messages=messages, n=3, seed=7, temperature=50, max_tokens=10,
                logprobs=True, top_logprobs=3, extra_body=flat)
            cached = {s.name: s.value for f in text_string_to_metric_families(urllib.request.urlopen(
                sys.argv[1].removesuffix("/v1") + "/metrics").read().decode()) for s in f.samples}["tide_prompt_tokens_cached_total"]
            single = client.chat.completions.create(model=model, messages=messages, max_tokens=1)
            streamed, finishes, usage, roles = {}, {}, None, []
            for chunk in client.chat.completions.create(model=model, messages=messages, n=2, temperature=50, max_tokens=10,
                    stream=True, stream_options={"include_usage": True}, extra_body=flat):
                for choice in chunk.choices:
                    if choice.delta.role: roles.append(choice.index)
                    streamed[choice.index] = streamed.get(choice.index, "") + (choice.delta.content or "")
                    if choice.finish_reason: finishes[choice.index] = choice.finish_reason
                if chunk.usage: usage = chunk.usage.completion_tokens
            text = client.completions.create(model=model, prompt="The sea is", n=2, max_tokens=3, temperature=50, extra_body=flat)
            text_streamed = {}
            for chunk in client.completions.create(model=model, prompt="The sea is", n=2, max_tokens=3, stream=True, extra_body=flat):
                for choice in chunk.choices: text_streamed[choice.index] = text_streamed.get(choice.index, "") + choice.text
            print(json.dumps({"choices": [{"index": c.index, "content": c.message.content,
                    "entries": [entry(e) for e in c.logprobs.content]} for c in whole.choices],
                "prompt_tokens": whole.usage.prompt_tokens, "completion_tokens": whole.usage.completion_tokens,
                "single_prompt_tokens": single.usage.prompt_tokens, "cached": cached,
                "streamed": streamed, "finishes": finishes, "streamed_usage": usage, "roles": roles,
                "text": [[c.index, c.text] for c in text.choices], "text_streamed": text_streamed}))
            """) as? [String: Any])
        let choices = try #require(result["choices"] as? [[String: Any]])
        #expect(choices.compactMap { $0["index"] as? Int } == [0, 1, 2], "\(choices)")
        var tokens = 0
        var firstPositions: [[String: Double]] = []
        for choice in choices {
            let content = try #require(choice["content"] as? String)
            let entries = try #require(choice["entries"] as? [[String: Any]])
            let spelled = entries.map { $0["bytes"] as? [UInt8] ?? [] }
            // The model's end, when it ended the reply, comes last and is no token of the text.
            let count = spelled.joined().elementsEqual(content.utf8) ? entries.count : entries.count - 1
            #expect(content.count == 6 && Array(spelled.prefix(count).joined()) == Array(content.utf8), "\(choice)")
            tokens += count
            firstPositions.append(try #require(entries.first?["top"] as? [String: Double]))
        }
        #expect(Set(choices.compactMap { $0["content"] as? String }).count > 1, "choices sampled with seeds of their own: \(choices)")
        #expect(result["completion_tokens"] as? Int == tokens, "every choice's tokens: \(result)")
        let prompt = try #require(result["prompt_tokens"] as? Int)
        #expect(prompt == result["single_prompt_tokens"] as? Int, "the prompt counted once")
        #expect(result["cached"] as? Double == Double(2 * (prompt - 1)), "the other choices found the prompt in their caches: \(result)")
        // Each choice scored the first position from the copied cache: the same scores, within
        // what decoding one token rather than the prompt's batch may change on any build (a GPU's
        // batches move scores by tenths); a cache copied wrong would be off by whole logits.
        for top in firstPositions.dropFirst() {
            for (token, logprob) in top {
                guard let first = firstPositions[0][token] else { continue }
                #expect(abs(first - logprob) < 0.5, "\(token.debugDescription): \(logprob) against \(first)")
            }
        }
        #expect(result["roles"] as? [Int] == [0, 1])
        let streamed = try #require(result["streamed"] as? [String: String])
        #expect(streamed.keys.sorted() == ["0", "1"] && streamed.values.allSatisfy { $0.count == 6 }, "\(streamed)")
        #expect((result["finishes"] as? [String: String])?.keys.sorted() == ["0", "1"], "\(result)")
        let streamedTokens = try #require(result["streamed_usage"] as? Int)
        #expect((2...20).contains(streamedTokens), "two choices' tokens: \(streamedTokens)")
        let text = try #require(result["text"] as? [[Any]])
        #expect(text.compactMap { $0[0] as? Int } == [0, 1] && text.allSatisfy { ($0[1] as? String)?.isEmpty == false }, "\(text)")
        #expect((result["text_streamed"] as? [String: String])?.keys.sorted() == ["0", "1"], "\(result)")
    }

    /// `n` out of 1–16, or above the sequences the server decodes at once, is a 400 naming the
    /// field and the limit; the server goes on.
    @Test func choicesOutOfRangeAreRefused() async throws {
        let server = try await TideServer(["--parallel", "2"])
        for (n, limit) in [(0, "1 to 16"), (17, "1 to 16"), (3, "at most 2")] {
            let (status, json) = try await server.post(#"{"model": "m", "n": \#(n), "messages": [{"role": "user", "content": "Hi"}]}"#)
            let error = try #require(json["error"] as? [String: Any], "\(json)")
            #expect(status == 400 && error["param"] as? String == "n", "\(json)")
            #expect((error["message"] as? String ?? "").contains(limit), "\(json)")
        }
        let (status, json, _) = try await server.send("POST", "v1/completions",
                                                      body: Data(#"{"model": "m", "n": 2, "prompt": "Hi", "max_tokens": 2}"#.utf8))
        #expect(status == 200 && (json["choices"] as? [Any])?.count == 2, "\(json)")
    }
}
