import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TideTestSupport

extension CommandLineTests {
    /// `tide serve` with several models: each loaded on its first request and named by the
    /// request's `model`, unloaded to make room under `--max-loaded` and `--memory-budget` (never
    /// while a request holds it) or after `--idle-unload`, each with its preset's plugins; a
    /// model that cannot load fails its own requests only. The official `openai` client names
    /// each model; `tide run --remote` runs a matrix and its judge through the one server.
    @Suite struct ServeModelsTests {
        static let q8 = "smollm2-135m-instruct"
        static let q4 = "smollm2-135m-instruct-q4_1"
        static let gemma = "gemma-3-270m"

        /// The `id`s of `/v1/models` whose `loaded` is true.
        static func loaded(_ server: TideServer) async throws -> Set<String> {
            let data = try #require(try await server.get("v1/models")["data"] as? [[String: Any]])
            return Set(data.filter { $0["loaded"] as? Bool == true }.compactMap { $0["id"] as? String })
        }

        /// A chat completion of `tokens` tokens asked of `model`: its status and JSON.
        static func ask(_ server: TideServer, _ model: String, tokens: Int = 3) async throws -> (status: Int, json: [String: Any]) {
            try await ask(at: server.url, model, tokens: tokens)
        }

        /// A chat completion of `tokens` tokens asked of `model` at the server whose base URL is `url`.
        static func ask(at url: URL, _ model: String, tokens: Int = 3) async throws -> (status: Int, json: [String: Any]) {
            var request = URLRequest(url: url.appendingPathComponent("v1/chat/completions"))
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(#"{"model": "\#(model)", "max_tokens": \#(tokens), "messages": [{"role": "user", "content": "Hi"}]}"#.utf8)
            let (data, response) = try await URLSession.shared.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:])
        }

        /// How many lines of the server's log are `loading NAME`.
        static func loads(of name: String, in server: TideServer) -> Int {
            server.log(tail: 100_000).split(separator: "\n").count { $0.hasSuffix("] loading \(name)") }
        }

        @Test func theOpenAIClientNamesEachModelAndARequestInFlightKeepsItsModel() async throws {
            // One model loaded at a time; a stream that runs to its max_tokens (no end) holds the
            // first while the second's request waits for it.
            let server = try await TideServer(["--model", Self.q8, "--model", Self.q4, "--max-loaded", "1", "--parallel", "2",
                                               "--plugin", ScratchPlugins.noEndFile])
            #expect(try await Self.loaded(server).isEmpty, "nothing loads before its first request")
            let result = try #require(try server.python("""
                import json, sys, threading, openai
                client = openai.OpenAI(base_url=sys.argv[1], api_key="unused", max_retries=0)
                models = [(model.id, model.model_dump().get("loaded")) for model in client.models.list()]
                events = []
                started = threading.Event()
                def held():
                    pieces, finish, usage = 0, None, None
                    for chunk in client.chat.completions.create(model="\(Self.q8)", max_tokens=120, stream=True,
                            stream_options={"include_usage": True}, messages=[{"role": "user", "content": "Count."}]):
                        if chunk.usage: usage = chunk.usage.completion_tokens
                        for choice in chunk.choices:
                            if choice.delta.content: pieces += 1; started.set()
                            if choice.finish_reason: finish = choice.finish_reason
                    events.append(("held ended", chunk.model, finish, usage))
                thread = threading.Thread(target=held)
                thread.start()
                started.wait(120)
                other = client.chat.completions.create(model="\(Self.q4)", max_tokens=3, messages=[{"role": "user", "content": "Hi"}])
                events.append(("other answered", other.model, other.choices[0].finish_reason, other.usage.completion_tokens))
                thread.join()
                try:
                    client.chat.completions.create(model="gpt-4o", max_tokens=3, messages=[{"role": "user", "content": "Hi"}])
                    missing = None
                except openai.NotFoundError as error:
                    missing = [error.status_code, error.body["code"], error.body["message"]]
                print(json.dumps({"models": models, "events": events, "missing": missing}))
                """) as? [String: Any])
            let models = try #require(result["models"] as? [[Any]])
            #expect(models.map { $0.first as? String } == [Self.q8, Self.q4])
            #expect(models.allSatisfy { $0.last as? Bool == false })
            let events = try #require(result["events"] as? [[Any]])
            // The second model could load only once the first's stream had ended whole.
            #expect(events.count == 2)
            #expect(events.first?.map { "\($0)" } == ["held ended", Self.q8, "length", "120"], "\(events)")
            #expect(events.last?.map { "\($0)" } == ["other answered", Self.q4, "length", "3"], "\(events)")
            let missing = try #require(result["missing"] as? [Any])
            #expect(missing.map { "\($0)" } == ["404", "model_not_found",
                                               "The model 'gpt-4o' does not exist; this server serves '\(Self.q8)', '\(Self.q4)'"])
            #expect(try await Self.loaded(server) == [Self.q4])
            let log = server.log(tail: 100_000)
            #expect(log.contains("unloading \(Self.q8) to make room for \(Self.q4)"), "\(log)")
        }

        @Test func aMemoryBudgetUnloadsTheLeastRecentlyUsedUntilTheNextFits() async throws {
            // By their estimates (file and cache of one 512-token sequence): the two SmolLM2 files
            // fit together (about 150 and 105 MiB), Gemma (about 250 MiB) fits alone.
            let server = try await TideServer(["--model", Self.q8, "--model", Self.q4, "--model", Self.gemma, "--memory-budget", "300M",
                                               "--ctx-size", "512", "--parallel", "1", "--default-model", Self.q4])
            // Requests racing to load one model load it once.
            let url = server.url
            async let first = Self.ask(at: url, Self.q8)
            async let second = Self.ask(at: url, Self.q8)
            async let third = Self.ask(at: url, Self.q8)
            let raced = try await [first, second, third].map(\.status)
            #expect(raced == [200, 200, 200])
            #expect(Self.loads(of: Self.q8, in: server) == 1)
            // A request that names no model gets the default.
            let unnamed = try await server.post(#"{"max_tokens": 2, "messages": [{"role": "user", "content": "Hi"}]}"#)
            #expect(unnamed.json["model"] as? String == Self.q4)
            #expect(try await Self.loaded(server) == [Self.q8, Self.q4])
            let listed = try #require(try await server.get("v1/models")["data"] as? [[String: Any]])
            #expect(listed.first { $0["id"] as? String == Self.q8 }?["context_length"] as? Int == 512)
            #expect(listed.first { $0["id"] as? String == Self.q8 }?["runs_on"] as? String != nil)
            #expect(listed.allSatisfy { $0["purpose"] as? String == "chat" })
            let gemma = try await Self.ask(server, Self.gemma)
            #expect(gemma.status == 200 && gemma.json["model"] as? String == Self.gemma, "\(gemma)")
            #expect(try await Self.loaded(server) == [Self.gemma])
            let log = server.log(tail: 100_000)
            #expect(log.contains("unloading \(Self.q8) to make room for \(Self.gemma)"), "\(log)")
            #expect(log.contains("unloading \(Self.q4) to make room for \(Self.gemma)"), "\(log)")
            // Back to the first: Gemma goes, the others come back in turn.
            #expect(try await Self.ask(server, Self.q8).status == 200)
            #expect(try await Self.loaded(server) == [Self.q8])
            #expect(Self.loads(of: Self.q8, in: server) == 2)

            // A model over the whole budget is refused with the numbers, and the server goes on.
            let small = try await TideServer(["--model", Self.q8, "--model", Self.q4, "--memory-budget", "50M", "--ctx-size", "512",
                                              "--parallel", "1"])
            let refused = try await Self.ask(small, Self.q8)
            let error = try #require(refused.json["error"] as? [String: Any])
            #expect(refused.status == 400 && error["code"] as? String == "model_over_budget", "\(refused)")
            let message = try #require(error["message"] as? String)
            #expect(message.hasPrefix("The model '\(Self.q8)' needs about ") && message.contains("of KV cache for 1 sequences of 512 tokens")
                        && message.contains("memory budget of 50 MiB"), "\(message)")
            #expect(try await small.get("health")["status"] as? String == "ok")
        }

        @Test func aModelThatCannotLoadFailsItsOwnRequestsOnly() async throws {
            let folder = try CommandLineTests.scratchFolder("models-dir")
            let cache = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
                ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(".cache")
            let store = cache.appendingPathComponent("tide/models")
            try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("small.gguf"),
                                                       withDestinationURL: store.appendingPathComponent("SmolLM2-135M-Instruct.Q4_1.gguf"))
            try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("vectors.gguf"),
                                                       withDestinationURL: store.appendingPathComponent("all-MiniLM-L6-v2.F16.gguf"))
            try Data("GGUF but not really a model".utf8).write(to: folder.appendingPathComponent("broken.gguf"))
            let server = try await TideServer(["--models-dir", folder.path, "--idle-unload", "1"])
            let listed = try #require(try await server.get("v1/models")["data"] as? [[String: Any]])
            #expect(listed.compactMap { $0["id"] as? String } == ["broken", "small", "vectors"])
            let broken = try await Self.ask(server, "broken")
            let error = try #require(broken.json["error"] as? [String: Any])
            #expect(broken.status == 500 && error["code"] as? String == "model_load_failed", "\(broken)")
            #expect((error["message"] as? String)?.hasPrefix("The model 'broken' could not be loaded: ") == true, "\(error)")
            let vectors = try await Self.ask(server, "vectors")
            let notChat = try #require((vectors.json["error"] as? [String: Any])?["message"] as? String)
            #expect(notChat.contains("is an embedding model"), "\(notChat)")
            let small = try await Self.ask(server, "small")
            #expect(small.status == 200 && small.json["model"] as? String == "small", "\(small)")
            // Idle for a second, it is unloaded; the next request loads it again.
            let deadline = ContinuousClock.now + .seconds(60)
            while try await !Self.loaded(server).isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
            #expect(try await Self.loaded(server).isEmpty)
            #expect(server.log(tail: 100_000).contains("unloading small: idle for 1 second"))
            #expect(try await Self.ask(server, "small").status == 200)
            #expect(Self.loads(of: "small", in: server) == 2)
        }

        /// A streamed request to a model not yet loaded opens with a comment saying so, which
        /// clients skip; an error found after it (a field the model's defaults refuse) comes as an
        /// error event, the status already sent. The official client reads such a stream as any.
        @Test func aStreamSaysItsModelLoadsFirst() async throws {
            let server = try await TideServer(["--model", Self.q8, "--model", Self.q4, "--max-loaded", "1"])
            func stream(_ model: String, extra: String = "") async throws -> (status: Int, text: String) {
                let body = #"{"model": "\#(model)", "stream": true, "max_tokens": 3\#(extra), "messages": [{"role": "user", "content": "Hi"}]}"#
                let (status, _, _, data) = try await server.sendRaw("POST", "v1/chat/completions", body: Data(body.utf8))
                return (status, String(decoding: data, as: UTF8.self))
            }
            let first = try await stream(Self.q4)
            #expect(first.status == 200 && first.text.hasPrefix(": loading \(Self.q4): the first request to it loads it\n\ndata: "), "\(first.text)")
            #expect(first.text.hasSuffix("data: [DONE]\n\n"), "\(first.text)")
            let loaded = try await stream(Self.q4)
            #expect(loaded.text.hasPrefix("data: "), "a loaded model's stream opens with its first chunk: \(loaded.text)")
            let refused = try await stream(Self.q8, extra: #", "top_p": 7"#)
            #expect(refused.status == 200 && refused.text.hasPrefix(": loading \(Self.q8)"), "\(refused.text)")
            #expect(refused.text.contains(#"data: {"error":"#) && refused.text.contains("top_p"), "\(refused.text)")
            let unknown = try await stream("gpt-4o")
            #expect(unknown.status == 404, "a name not served is refused before anything is sent")
            let result = try #require(try server.python("""
                import json, sys, openai
                client = openai.OpenAI(base_url=sys.argv[1], api_key="unused", max_retries=0)
                chunks = list(client.chat.completions.create(model="\(Self.q8)", max_tokens=3, stream=True,
                    messages=[{"role": "user", "content": "Hi"}]))
                print(json.dumps({"model": chunks[0].model, "finish": chunks[-1].choices[0].finish_reason}))
                """) as? [String: Any])
            #expect(result["model"] as? String == Self.q8 && result["finish"] as? String == "length", "\(result)")
        }

        /// SIGTERM while a model loads: the load ends, the request is answered within the grace
        /// (or told why not), and the server exits cleanly.
        @Test func aStopDuringALoadExitsCleanly() async throws {
            let server = try await TideServer(["--model", Self.q8, "--model", Self.gemma])
            let url = server.url
            let request = Task { (try? await Self.ask(at: url, Self.gemma))?.status }
            let deadline = ContinuousClock.now + .seconds(60)
            while !server.log(tail: 100_000).contains("] loading \(Self.gemma)"), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            let took = server.terminate(waitingAtMost: .seconds(60))
            #expect(took != nil, "the server ended")
            #expect(server.ending?.status == 0 && server.ending?.signalled == false, "\(String(describing: server.ending))")
            #expect(server.log(tail: 2_000).contains("tide serve: stopped"), "\(server.log(tail: 2_000))")
            _ = await request.value
        }

        @Test func aMatrixAndItsJudgeRunThroughOneServerEachModelWithItsPresetsPlugins() async throws {
            // The judge is a preset whose plugin decides from what it is shown; the server applies
            // it to that model's requests only.
            let (folder, environment) = try JudgeCheckTests.folder()
            let server = try await TideServer(["--model", Self.q8, "--model", Self.q4, "--model", "reading-judge"], environment: environment)
            let script = folder.appendingPathComponent("paris.tide")
            try """
                # Two models and their judge behind one server.
                @grammar paris.gbnf
                user: What is the capital of France?
                expect: judge "names Paris"

                """.write(to: script, atomically: true, encoding: .utf8)
            let run = try TideProcess.run(["run", "--remote", server.url.absoluteString + "/v1", "--model", Self.q8, "--model", Self.q4,
                                           "--judge", "reading-judge", script.path], environment: environment)
            #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
            #expect(run.stdout.contains("\(Self.q8): \(script.path):4: PASS expect: judge \"names Paris\""), "\(run.stdout)")
            #expect(run.stdout.contains("\(Self.q4): \(script.path):4: PASS expect: judge \"names Paris\""), "\(run.stdout)")
            #expect(try await Self.loaded(server) == [Self.q8, Self.q4, "reading-judge"])
            // The judge's plugin answers for that model only; the others are the model's words.
            let judged = try await Self.ask(server, "reading-judge", tokens: 20)
            let text = (((judged.json["choices"] as? [[String: Any]])?.first?["message"]) as? [String: Any])?["content"] as? String
            #expect(text == "no verdict", "\(judged)")
            let plain = try await Self.ask(server, Self.q8, tokens: 20)
            let words = (((plain.json["choices"] as? [[String: Any]])?.first?["message"]) as? [String: Any])?["content"] as? String
            #expect(words != "no verdict", "\(plain)")
        }
    }
}
