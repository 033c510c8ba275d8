import Foundation
import Testing
import TideTestSupport

extension CommandLineTests {
    /// `tide serve` as its clients see it: the official `openai` Python client, Tide's own remote
    /// backend, raw HTTP for what clients should never send.
    @Suite struct ServeCommandTests {
        static let questions = ["What is the capital of France?", "What is 2+2?", "Name a colour.", "What is the capital of Italy?",
                                "Say hello.", "What is the largest ocean?", "Name a fruit.", "What is the capital of Spain?"]

        @Test func theOpenAIClientStreamsAndNot() async throws {
            // The words made certain (two sentences), so that the plugin's stop after the first holds on any machine.
            let server = try await TideServer(["--plugin", ScratchPlugins.capitalsFile + " text='Paris is the capital of France. It lies on the Seine.'",
                                               "--plugin", "stop-after-sentences sentences=1"])
            let result = try #require(try server.python("""
                import json, sys, openai
                client = openai.OpenAI(base_url=sys.argv[1], api_key="unused")
                whole = client.chat.completions.create(model="smollm2-135m-instruct", temperature=0,
                    messages=[{"role": "user", "content": "Tell me about Paris."}])
                pieces, finish, usage = [], None, None
                for chunk in client.chat.completions.create(model="smollm2-135m-instruct", temperature=0, stream=True,
                        stream_options={"include_usage": True}, messages=[{"role": "user", "content": "Tell me about Paris."}]):
                    if chunk.usage: usage = chunk.usage.model_dump(exclude_none=True, exclude={"prompt_tokens_details"})
                    for choice in chunk.choices:
                        if choice.delta.content: pieces.append(choice.delta.content)
                        if choice.finish_reason: finish = choice.finish_reason
                aliased = client.chat.completions.create(model="gpt-4", max_tokens=2, messages=[{"role": "user", "content": "Hi"}])
                missing = aliased.model
                models = [model.id for model in client.models.list()]
                print(json.dumps({"whole": whole.choices[0].message.content, "whole_finish": whole.choices[0].finish_reason,
                    "usage": whole.usage.model_dump(exclude_none=True, exclude={"prompt_tokens_details"}), "pieces": pieces, "finish": finish, "stream_usage": usage,
                    "missing": missing, "models": models}))
                """) as? [String: Any])
            let whole = try #require(result["whole"] as? String)
            let pieces = try #require(result["pieces"] as? [String])
            #expect(pieces.count > 3, "streamed in pieces: \(pieces)")
            #expect(pieces.joined() == whole, "the same reply streamed and not, under greedy decoding")
            #expect(whole.hasPrefix("Paris is the capital of France.") && !whole.contains("Seine"),
                    "the server's plugin stopped after one sentence: \(whole)")
            #expect(result["whole_finish"] as? String == "stop")
            #expect(result["finish"] as? String == "stop")
            let usage = try #require(result["usage"] as? [String: Int])
            #expect(usage["prompt_tokens", default: 0] > 5)
            #expect(usage["completion_tokens", default: 0] > 3)
            #expect(usage["total_tokens"] == usage["prompt_tokens", default: 0] + usage["completion_tokens", default: 0])
            #expect(result["stream_usage"] as? [String: Int] == usage)
            #expect(result["missing"] as? String == "smollm2-135m-instruct", "another model's name is taken for the served model")
            #expect(result["models"] as? [String] == ["smollm2-135m-instruct"])
        }

        /// `/v1/completions` on the real model: the prompt is continued as it is, with no chat
        /// template, so a prompt that writes the template's markup itself gets the chat's reply.
        @Test func theOpenAIClientCompletesText() async throws {
            let server = try await TideServer()
            let result = try #require(try server.python("""
                import json, sys, openai
                client = openai.OpenAI(base_url=sys.argv[1], api_key="unused")
                prompt = "The capital of France is"
                whole = client.completions.create(model="smollm2-135m-instruct", prompt=prompt, max_tokens=8, temperature=0)
                pieces, finish, usage = [], None, None
                for chunk in client.completions.create(model="smollm2-135m-instruct", prompt=prompt, max_tokens=8, temperature=0,
                        stream=True, stream_options={"include_usage": True}):
                    if chunk.usage: usage = chunk.usage.model_dump(exclude_none=True, exclude={"prompt_tokens_details"})
                    for choice in chunk.choices:
                        pieces.append(choice.text)
                        if choice.finish_reason: finish = choice.finish_reason
                echoed = client.completions.create(model="smollm2-135m-instruct", prompt=prompt, max_tokens=8, temperature=0, echo=True)
                messages = [{"role": "system", "content": "You are a helpful assistant."},
                            {"role": "user", "content": "What is the capital of France?"}]
                chat = client.chat.completions.create(model="smollm2-135m-instruct", messages=messages, max_tokens=24, temperature=0)
                markup = "".join(f"<|im_start|>{m['role']}\\n{m['content']}<|im_end|>\\n" for m in messages) + "<|im_start|>assistant\\n"
                marked = client.completions.create(model="smollm2-135m-instruct", prompt=markup, max_tokens=24, temperature=0)
                print(json.dumps({"object": whole.object, "whole": whole.choices[0].text, "whole_finish": whole.choices[0].finish_reason,
                    "usage": whole.usage.model_dump(exclude_none=True, exclude={"prompt_tokens_details"}), "pieces": pieces, "finish": finish, "stream_usage": usage,
                    "echoed": echoed.choices[0].text, "chat": chat.choices[0].message.content,
                    "chat_prompt_tokens": chat.usage.prompt_tokens, "marked": marked.choices[0].text,
                    "marked_prompt_tokens": marked.usage.prompt_tokens}))
                """) as? [String: Any])
            #expect(result["object"] as? String == "text_completion")
            let whole = try #require(result["whole"] as? String)
            #expect(!whole.isEmpty && !whole.contains("<|im_"), "\(whole)")
            #expect((result["pieces"] as? [String])?.joined() == whole, "the same continuation streamed and not")
            let usage = try #require(result["usage"] as? [String: Int])
            // Eight tokens, or fewer where the model ends the continuation sooner on this machine.
            let tokens = try #require(usage["completion_tokens"])
            #expect(tokens >= 1 && tokens <= 8)
            #expect(result["whole_finish"] as? String == (tokens == 8 ? "length" : "stop"))
            #expect(result["finish"] as? String == result["whole_finish"] as? String)
            #expect(usage["prompt_tokens", default: 99] <= 7, "the prompt alone, with no template around it: \(usage)")
            #expect(result["stream_usage"] as? [String: Int] == usage)
            #expect(result["echoed"] as? String == "The capital of France is" + whole)
            let chat = try #require(result["chat"] as? String)
            #expect(!chat.isEmpty)
            #expect(result["marked"] as? String == chat, "markup written in the prompt is read as the template's tokens")
            #expect(result["marked_prompt_tokens"] as? Int == result["chat_prompt_tokens"] as? Int)
        }

        /// A client going on with its conversation gets the sequence that holds it, though another
        /// client's request came in between, and the usage says how much of its prompt was cached.
        @Test func aContinuedConversationFindsItsSequenceAndItsCache() async throws {
            let server = try await TideServer(["--parallel", "2", "--max-tokens", "24"])
            let result = try #require(try server.python("""
                import json, sys, openai
                client = openai.OpenAI(base_url=sys.argv[1], api_key="unused")
                def ask(messages):
                    reply = client.chat.completions.create(model="smollm2-135m-instruct", temperature=0, messages=messages)
                    return reply.choices[0].message.content, reply.usage.prompt_tokens, reply.usage.prompt_tokens_details.cached_tokens
                first = [{"role": "user", "content": "My name is Ada and I live by the sea. Please remember it."}]
                text, first_prompt, first_cached = ask(first)
                _, _, other_cached = ask([{"role": "user", "content": "What is the largest ocean on Earth?"}])
                _, then_prompt, then_cached = ask(first + [{"role": "assistant", "content": text},
                                                           {"role": "user", "content": "What is my name?"}])
                print(json.dumps({"first": [first_prompt, first_cached], "other": other_cached, "then": [then_prompt, then_cached]}))
                """) as? [String: Any])
            let first = try #require(result["first"] as? [Int])
            let then = try #require(result["then"] as? [Int])
            #expect(first[1] == 0, "a new server has nothing cached: \(result)")
            #expect(result["other"] as? Int == 0, "another conversation takes the sequence not used yet: \(result)")
            #expect(then[1] > first[0], "the whole first exchange was still cached: \(result)")
            #expect(then[1] < then[0])
        }

        /// `--prompt-cache DIR`: the state after a long system prompt outlives the server, and a
        /// restarted server loads that start of a new conversation's prompt instead of reading it.
        @Test func aPromptCacheOutlivesARestart() async throws {
            let folder = try CommandLineTests.scratchFolder("prompt-cache")
            let system = "You are a helpful assistant. " + (0..<60).map { "Fact \($0): river \($0) flows into lake \($0 % 7)." }
                .joined(separator: " ")
            let client = """
                import json, sys, openai
                client = openai.OpenAI(base_url=sys.argv[1], api_key="unused")
                reply = client.chat.completions.create(model="smollm2-135m-instruct", temperature=0, max_tokens=2, messages=[
                    {"role": "system", "content": sys.argv[2]}, {"role": "user", "content": sys.argv[3]}])
                print(json.dumps([reply.usage.prompt_tokens, reply.usage.prompt_tokens_details.cached_tokens]))
                """
            let first = try await TideServer(["--prompt-cache", folder.path])
            let before = try #require(try first.python(client, arguments: [system, "Name a colour."]) as? [Int])
            _ = first.terminate(waitingAtMost: .seconds(30))
            #expect(before[1] == 0, "a new server has nothing cached: \(before)")

            let restarted = try await TideServer(["--prompt-cache", folder.path])
            let after = try #require(try restarted.python(client, arguments: [system, "Name a fruit."]) as? [Int])
            #expect(after[1] >= 256, "the system prompt's state was loaded: \(after)")
            #expect(after[1] < after[0])
        }

        @Test func eightConcurrentClientsGetCompleteUnmixedReplies() async throws {
            let server = try await TideServer(["--parallel", "4", "--max-tokens", "48"])
            let script = """
                import json, sys, threading, openai
                client = openai.OpenAI(base_url=sys.argv[1], api_key="unused")
                questions = json.loads(sys.argv[2])
                def ask(question):
                    pieces, finish = [], None
                    for chunk in client.chat.completions.create(model="smollm2-135m-instruct", temperature=0, stream=True,
                            messages=[{"role": "user", "content": question}]):
                        for choice in chunk.choices:
                            if choice.delta.content: pieces.append(choice.delta.content)
                            if choice.finish_reason: finish = choice.finish_reason
                    return {"reply": "".join(pieces), "finish": finish}
                alone = [ask(question) for question in questions]
                together = [None] * len(questions)
                def run(index): together[index] = ask(questions[index])
                threads = [threading.Thread(target=run, args=(index,)) for index in range(len(questions))]
                for thread in threads: thread.start()
                for thread in threads: thread.join()
                print(json.dumps({"alone": alone, "together": together}))
                """
            let questions = String(decoding: try JSONSerialization.data(withJSONObject: Self.questions), as: UTF8.self)
            let result = try #require(try server.python(script, arguments: [questions]) as? [String: [[String: String]]])
            let alone = try #require(result["alone"])
            let together = try #require(result["together"])
            #expect(together.count == 8)
            for (index, (single, concurrent)) in zip(alone, together).enumerated() {
                #expect(concurrent["finish"] != nil, "reply \(index) is complete")
                #expect(!(concurrent["reply"] ?? "").isEmpty)
                #expect(concurrent["reply"] == single["reply"], "reply \(index) to '\(Self.questions[index])' is its own")
            }
            let health = try await server.get("health")
            #expect(health["busy"] as? Int == 0)
            #expect(health["sequences"] as? Int == 4)
            #expect(health["runs_on"] as? String == GPUMachine.placement ?? "CPU")
        }

        @Test func badRequestsAreRefusedAndTheServerGoesOn() async throws {
            let server = try await TideServer(["--ctx-size", "256"])
            let cases: [(String, Int, String)] = [
                ("{not json", 400, "not valid JSON"),
                (#"{"model": "smollm2-135m-instruct"}"#, 400, "'messages' is missing"),
                (#"{"model": "smollm2-135m-instruct", "messages": []}"#, 400, "messages must hold at least one message"),
                (#"{"model": "smollm2-135m-instruct", "messages": [{"role": "user", "content": "Hi"}], "temperature": -1}"#, 400,
                 "temperature must be ≥ 0 (0 picks the likeliest token), at most 3.4e+38, not -1"),
                (#"{"model": "smollm2-135m-instruct", "messages": [{"role": "user", "content": "Hi"}], "top_p": 2}"#, 400,
                 "top_p must be a number in (0, 1], not 2"),
                (#"{"model": "smollm2-135m-instruct", "messages": [{"role": "user", "content": "Hi"}], "n": 17}"#, 400, "n must be a whole number from 1 to 16"),
                (#"{"model": "smollm2-135m-instruct", "messages": [{"role": "assistant", "content": "Hi"}]}"#, 400,
                 "the last message must be the user's"),
                (#"{"model": "smollm2-135m-instruct", "messages": [{"role": "user", "content": "\#(String(repeating: "word ", count: 400))"}], "stream": true}"#,
                 400, "but the context holds 256: raise the context size, shorten the conversation"),
            ]
            for (body, status, message) in cases {
                let (code, json) = try await server.post(body)
                #expect(code == status, "\(body.prefix(80))")
                let error = try #require(json["error"] as? [String: Any], "\(json)")
                #expect((error["message"] as? String ?? "").contains(message), "\(error)")
                #expect(error["type"] as? String == "invalid_request_error")
            }
            let (code, json) = try await server.post(#"{"model": "smollm2-135m-instruct", "temperature": 0, "messages": [{"role": "user", "content": "What is the capital of France?"}]}"#)
            #expect(code == 200)
            let choices = try #require(json["choices"] as? [[String: Any]])
            let content = try #require((choices.first?["message"] as? [String: Any])?["content"] as? String)
            #expect(!content.isEmpty)
        }

        @Test func aClientThatLeavesFreesItsSequence() async throws {
            // The story is still running when the client leaves, whichever words it holds: its end is banned.
            let server = try await TideServer(["--parallel", "1", "--plugin", ScratchPlugins.noEndFile])
            let result = try #require(try server.python("""
                import json, sys, time, httpx
                body = {"model": "smollm2-135m-instruct", "stream": True, "max_tokens": 4000,
                        "messages": [{"role": "user", "content": "Write a very long story about a dragon."}]}
                base = sys.argv[1]
                health = base.removesuffix("/v1") + "/health"
                with httpx.stream("POST", base + "/chat/completions", json=body, timeout=60) as response:
                    lines = response.iter_lines()
                    received = [next(lines) for _ in range(8)]
                    busy = httpx.get(health).json()["busy"]
                    # A whole-reply request waits for the busy sequence; its client gives up.
                    try:
                        httpx.post(base + "/chat/completions", timeout=1, json={"model": "smollm2-135m-instruct",
                            "messages": [{"role": "user", "content": "Hi"}]})
                        gave_up = False
                    except httpx.TimeoutException:
                        gave_up = True
                    start = time.monotonic()
                    while httpx.get(health).json()["waiting"] and time.monotonic() - start < 10:
                        time.sleep(0.02)
                    unqueued = time.monotonic() - start
                    response.close()
                start = time.monotonic()
                while httpx.get(health).json()["busy"] and time.monotonic() - start < 10:
                    time.sleep(0.02)
                freed = time.monotonic() - start
                reply = httpx.post(base + "/chat/completions", timeout=60, json={"model": "smollm2-135m-instruct",
                    "temperature": 0, "max_tokens": 8, "messages": [{"role": "user", "content": "What is the capital of France?"}]}).json()
                print(json.dumps({"busy": busy, "gave_up": gave_up, "unqueued": unqueued, "freed": freed,
                                  "next": reply["choices"][0]["message"]["content"]}))
                """) as? [String: Any])
            #expect(result["busy"] as? Int == 1, "the stream held the only sequence")
            #expect(result["gave_up"] as? Bool == true, "the whole-reply request waited for it")
            #expect((result["unqueued"] as? Double ?? 99) < 2, "a client that leaves while it waits leaves the queue")
            #expect((result["freed"] as? Double ?? 99) < 2, "freed when the client left, long before 4000 tokens")
            #expect(!(result["next"] as? String ?? "").isEmpty, "the freed sequence answers the next request")
            let log = server.log(tail: 4000)
            #expect(log.contains("stop cancelled, streamed") || log.contains("ended early: I/O on closed channel"), "\(log)")
        }

        @Test func anAPIKeyIsRequiredWhenSet() async throws {
            let server = try await TideServer(["--api-key", "sesame"])
            let question = #"{"model": "smollm2-135m-instruct", "max_tokens": 4, "messages": [{"role": "user", "content": "Hi"}]}"#
            let (refused, body) = try await server.post(question)
            #expect(refused == 401)
            #expect((body["error"] as? [String: Any])?["code"] as? String == "invalid_api_key")
            #expect(try await server.post(question, key: "wrong").status == 401)
            #expect(try await server.post(question, key: "sesame").status == 200)
            #expect(try await server.get("health")["status"] as? String == "ok")
        }

        @Test func tidesRemoteBackendAgainstTideServe() async throws {
            // The capitals plugin makes the model write "Paris"; the censor takes it out.
            let server = try await TideServer(["--plugin", ScratchPlugins.capitalsFile, "--plugin", "censor-words words=Paris"])
            let chat = try TideProcess.run(["chat", "--remote", server.url.absoluteString, "--temperature", "0", "--max-tokens", "40"],
                                           stdin: "What is the capital of France?\n/show\n")
            #expect(chat.status == 0, "\(chat.stderr)")
            #expect(chat.stdout.contains("model: smollm2-135m-instruct"))
            #expect(chat.stdout.contains("The capital of France is ") && !chat.stdout.contains("Paris"),
                    "the server's plugin censored the reply: \(chat.stdout)")
            let replay = try TideProcess.run(["run", "--remote", server.url.absoluteString, "Conversations/capitals.tide"])
            #expect(replay.status == 1, "capitals.tide expects Paris, which the server censors: \(replay.stdout)")
            #expect(replay.stdout.contains("FAIL"))
            // A server whose model answers with certain words passes it (with `--remote` the replies
            // are generated there, not checked by teacher forcing).
            let plain = try await TideServer(["--plugin", ScratchPlugins.capitalsFile])
            let passing = try TideProcess.run(["run", "--remote", plain.url.absoluteString, "Conversations/capitals.tide"])
            #expect(passing.status == 0, "\(passing.stdout)\(passing.stderr)")
            #expect(passing.stdout.contains("0 failed"))
        }
    }
}
