import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TideTestSupport

extension CommandLineTests.ServeCommandTests {
    /// Bodies sent a byte at a time are cut at `--request-timeout` counted from the connection's
    /// start (an idle timer alone restarts at every byte), and connections held that way cannot
    /// keep a real request out: at the connection limit, the one waiting longest for its request
    /// is closed for the next.
    @Test func trickledBodiesAreCutAndCannotHoldTheConnectionLimit() async throws {
        let server = try await TideServer(["--request-timeout", "3", "--max-connections", "6"])
        let result = try #require(try server.python("""
            import json, socket, sys, threading, time, httpx
            port = int(sys.argv[1].split(":")[2].split("/")[0])
            head = (b"POST /v1/chat/completions HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nContent-Type: application/json\\r\\n"
                    b"Transfer-Encoding: chunked\\r\\n\\r\\n")
            start = time.monotonic()
            closed = {}
            def trickle(number):
                connection = socket.create_connection(("127.0.0.1", port))
                connection.sendall(head)
                try:
                    while time.monotonic() - start < 20:
                        connection.sendall(b"1\\r\\n \\r\\n")
                        time.sleep(0.25)
                        connection.setblocking(False)
                        try:
                            if connection.recv(4096) == b"": break
                        except BlockingIOError:
                            pass
                        connection.setblocking(True)
                except OSError:
                    pass
                closed[number] = time.monotonic() - start
                connection.close()
            threads = [threading.Thread(target=trickle, args=(number,)) for number in range(6)]
            for thread in threads: thread.start()
            time.sleep(1)
            asked = time.monotonic()
            try:
                health = httpx.get(sys.argv[1].removesuffix("/v1") + "/health", timeout=15).status_code
            except httpx.TimeoutException:
                health = None
            answered = time.monotonic() - asked
            for thread in threads: thread.join()
            print(json.dumps({"health": health, "answered": answered, "closed": sorted(closed.values())}))
            """) as? [String: Any])
        #expect(result["health"] as? Int == 200, "a request while six connections trickled their bodies: \(result)")
        // Trickled for 20 s unless cut: each is cut at 3 s from its start (or shed sooner).
        let closed = try #require(result["closed"] as? [Double])
        #expect(closed.count == 6 && closed.allSatisfy { $0 < 15 }, "when the trickling connections were closed: \(closed)")
    }

    /// Without `--cors-origin`, a request that a web page's script or form sends (it carries
    /// `Origin`) is refused with 403 before any work, and so is a `Host` that is not the
    /// server's address (a page that rebinds its own name to 127.0.0.1); clients that send no
    /// `Origin` (curl, the SDKs) and the server's own origin are answered.
    @Test func webPagesCannotDriveALocalServer() async throws {
        let server = try await TideServer()
        let result = try #require(try server.python("""
            import json, sys, httpx
            base = sys.argv[1]
            port = base.split(":")[2].split("/")[0]
            body = '{"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": "hi"}]}'
            def send(headers):
                reply = httpx.post(base + "/chat/completions", content=body, headers={"Content-Type": "text/plain", **headers}, timeout=60)
                error = reply.json().get("error") or {}
                return [reply.status_code, error.get("code"), reply.headers.get("access-control-allow-origin")]
            print(json.dumps({
                "foreign": send({"Origin": "http://evil.example"}),
                "null": send({"Origin": "null"}),
                "rebound": send({"Host": "evil.example:" + port}),
                "both": send({"Host": "evil.example:" + port, "Origin": "http://evil.example:" + port}),
                "own": send({"Origin": "http://127.0.0.1:" + port}),
                "localhost": send({"Host": "localhost:" + port}),
                "plain": send({}),
                "preflight": httpx.options(base + "/chat/completions", headers={"Origin": "http://evil.example",
                                           "Access-Control-Request-Method": "POST"}).status_code,
            }))
            """) as? [String: Any])
        func answer(_ name: String) -> [String] { (result[name] as? [Any] ?? []).map { $0 is NSNull ? "<null>" : "\($0)" } }
        #expect(answer("foreign").prefix(2) == ["403", "origin_not_allowed"], "\(result)")
        #expect(answer("null").prefix(2) == ["403", "origin_not_allowed"], "\(result)")
        #expect(answer("rebound").prefix(2) == ["403", "host_not_allowed"], "\(result)")
        #expect(answer("both").first == "403", "\(result)")
        for name in ["own", "localhost", "plain"] { #expect(answer(name).first == "200", "\(name): \(result)") }
        #expect(answer("foreign").last == "<null>", "a refused origin gets no CORS headers: \(result)")
        #expect(result["preflight"] as? Int == 403, "a preflight from a page not allowed: \(result)")
    }

    /// `--cors-origin` lets one origin's pages call the server, with CORS' headers and preflight;
    /// `--allowed-hosts` adds a name the server answers to; other origins stay refused.
    @Test func anAllowedOriginGetsCORSHeaders() async throws {
        let server = try await TideServer(["--cors-origin", "http://app.example:3000", "--allowed-hosts", "tide.lan"])
        let result = try #require(try server.python("""
            import json, sys, httpx
            base = sys.argv[1]
            port = base.split(":")[2].split("/")[0]
            allowed = {"Origin": "http://app.example:3000"}
            preflight = httpx.options(base + "/chat/completions", headers={**allowed, "Access-Control-Request-Method": "POST",
                                      "Access-Control-Request-Headers": "content-type, authorization"})
            post = httpx.post(base + "/chat/completions", json={"model": "m", "max_tokens": 1,
                              "messages": [{"role": "user", "content": "hi"}]}, headers=allowed, timeout=60)
            other = httpx.get(base + "/models", headers={"Origin": "http://other.example"})
            named = httpx.get(base + "/models", headers={"Host": "tide.lan:" + port})
            print(json.dumps({"preflight": [preflight.status_code, preflight.headers.get("access-control-allow-origin"),
                                            preflight.headers.get("access-control-allow-methods", ""),
                                            preflight.headers.get("access-control-allow-headers", "")],
                              "post": [post.status_code, post.headers.get("access-control-allow-origin")],
                              "other": other.status_code, "named": named.status_code}))
            """) as? [String: Any])
        let preflight = try #require(result["preflight"] as? [Any])
        #expect(preflight.first as? Int == 204 && preflight[1] as? String == "http://app.example:3000", "\(result)")
        #expect((preflight[2] as? String ?? "").contains("POST") && (preflight[3] as? String ?? "").contains("Authorization"), "\(result)")
        let post = try #require(result["post"] as? [Any])
        #expect(post.first as? Int == 200 && post.last as? String == "http://app.example:3000", "\(result)")
        #expect(result["other"] as? Int == 403 && result["named"] as? Int == 200, "\(result)")
    }

    /// A page served from another origin, in a real browser (headless Chromium), tries the server
    /// with `fetch` and with a form's post: both are refused, and the model generates nothing.
    @Test func aBrowserOnAnotherOriginIsRefused() async throws {
        let server = try await TideServer(["--metrics"])
        let page = try CommandLineTests.scratchFolder("browser")
        let target = server.url.absoluteString + "/v1/chat/completions"
        try """
            <!doctype html><html><body>
            <form id="form" method="post" action="\(target)" enctype="text/plain" target="sink">
              <input name='{"model": "m", "max_tokens": 3, "messages": [{"role": "user", "content": "hi"}], "x": "' value='"}'>
            </form><iframe name="sink"></iframe><p id="result">pending</p>
            <script>
              fetch("\(target)", {method: "POST", headers: {"Content-Type": "text/plain"},
                    body: JSON.stringify({model: "m", max_tokens: 3, messages: [{role: "user", content: "hi"}]})})
                .then(r => r.text().then(t => document.getElementById("result").textContent = "read " + r.status + " " + t))
                .catch(e => document.getElementById("result").textContent = "refused: " + e);
              document.getElementById("form").submit();
            </script></body></html>
            """.write(to: page.appendingPathComponent("page.html"), atomically: true, encoding: .utf8)
        let result = try #require(try server.python("""
            import functools, http.server, json, re, shutil, subprocess, sys, threading, httpx
            folder = sys.argv[2]
            handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=folder)
            site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
            threading.Thread(target=site.serve_forever, daemon=True).start()
            browser = next(filter(None, map(shutil.which, ["chromium", "chromium-browser"])))
            dom = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--virtual-time-budget=8000",
                                  "--dump-dom", f"http://127.0.0.1:{site.server_address[1]}/page.html"],
                                 capture_output=True, text=True, timeout=120).stdout
            site.shutdown()
            metrics = httpx.get(sys.argv[1].removesuffix("/v1") + "/metrics").text
            counted = {status: int(float(count)) for status, count in
                       re.findall(r'tide_requests_total\\{endpoint="/v1/chat/completions",status="(\\d+)"\\} (\\S+)', metrics)}
            generated = re.search(r"^tide_generated_tokens_total (\\S+)", metrics, re.M)
            shown = re.search(r'<p id="result">(.*?)</p>', dom, re.S)
            print(json.dumps({"counted": counted, "generated": float(generated.group(1)) if generated else 0,
                              "page": shown.group(1) if shown else dom[:300]}))
            """, arguments: [page.path]) as? [String: Any])
        let counted = try #require(result["counted"] as? [String: Int])
        #expect((counted["403"] ?? 0) >= 2 && counted["200"] == nil, "the browser's fetch and form post: \(result)")
        #expect(result["generated"] as? Double == 0, "\(result)")
        #expect((result["page"] as? String ?? "").hasPrefix("refused"), "the page could not read an answer: \(result)")
    }

    /// Lists a request may send are bounded, each refused past its bound with a 400 naming the
    /// field, before any work (a call's arguments count among the messages' characters): one request cannot make the sampler's preparation (DRY reads the
    /// vocabulary for each breaker, a text's bias is tokenized) take seconds.
    @Test func listsPastTheirBoundsAreRefused() async throws {
        let server = try await TideServer()
        let result = try #require(try server.python("""
            import json, sys, httpx
            url = sys.argv[1] + "/chat/completions"
            def send(extra):
                body = {"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": "hi"}], **extra}
                reply = httpx.post(url, json=body, timeout=60)
                return [reply.status_code, (reply.json().get("error") or {}).get("param")]
            print(json.dumps({
                "breakers": send({"dry_multiplier": 1, "dry_sequence_breakers": ["x"] * 100000}),
                "long breaker": send({"dry_multiplier": 1, "dry_sequence_breakers": ["x" * 41]}),
                "most breakers": send({"dry_multiplier": 1, "dry_sequence_breakers": [chr(0x41 + i % 26) * (1 + i % 40) for i in range(64)]}),
                "stops": send({"stop": ["s%d" % i for i in range(65)]}),
                "long stop": send({"stop": ["s" * 1025]}),
                "biases": send({"logit_bias": {"w%d" % i: 1 for i in range(100000)}}),
                "long bias": send({"logit_bias": {"w" * 257: 1}}),
                "most biases": send({"logit_bias": {str(i): -1 for i in range(1024)}}),
                "call arguments": send({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "", "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "f", "arguments": json.dumps({"a": "x" * 1000001})}}]},
                    {"role": "tool", "tool_call_id": "c1", "content": "ok"}]}),
            }))
            """) as? [String: [Any]])
        func answer(_ name: String) -> [String] { (result[name] ?? []).map { "\($0)" } }
        for (name, field) in [("breakers", "dry_sequence_breakers"), ("long breaker", "dry_sequence_breakers"), ("stops", "stop"),
                              ("long stop", "stop"), ("biases", "logit_bias"), ("long bias", "logit_bias"), ("call arguments", "messages")] {
            #expect(answer(name) == ["400", field], "\(name): \(result)")
        }
        #expect(answer("most breakers").first == "200" && answer("most biases").first == "200", "\(result)")
    }

    /// SIGTERM ends the server within its grace whatever the requests in flight ask for: the
    /// heaviest within the bounds, being prepared, and one past them (100,000 DRY breakers,
    /// which before the bounds held the batch for minutes and needed SIGKILL).
    @Test func sigtermEndsTheServerWhateverRequestsArePrepared() async throws {
        let server = try await TideServer(["--shutdown-grace", "2"])
        let url = server.url.appendingPathComponent("v1/chat/completions")
        let bodies = [
            #"{"model": "m", "max_tokens": 2, "dry_multiplier": 1, "dry_sequence_breakers": ["# + Array(repeating: #""x""#, count: 100_000).joined(separator: ",") + "], "
                + #""messages": [{"role": "user", "content": "hi"}]}"#,
            #"{"model": "m", "max_tokens": 2, "dry_multiplier": 1, "dry_sequence_breakers": ["# + (0..<64).map { "\"\(String(repeating: "ab", count: 19))\($0 % 10)\"" }.joined(separator: ",")
                + #"], "messages": [{"role": "user", "content": "hi"}]}"#,
            #"{"model": "m", "max_tokens": 2, "messages": [{"role": "user", "content": ""# + String(repeating: "word ", count: 199_000) + #""}]}"#,
        ]
        let senders = bodies.map { body in
            Task {
                var request = URLRequest(url: url)
                request.httpMethod = "POST"
                request.httpBody = Data(body.utf8)
                request.timeoutInterval = 60
                _ = try? await URLSession.shared.data(for: request)
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        let took = server.terminate(waitingAtMost: .seconds(20))
        for sender in senders { sender.cancel() }
        #expect(took != nil, "tide serve still ran 20 s after SIGTERM")
        #expect(took.map { $0 < .seconds(10) } ?? false, "SIGTERM took \(String(describing: took))")
    }

    /// A body is read as strict JSON once: a key given twice in one object is refused naming it
    /// (parsers differ on which counts, so a proxy that checked one could be bypassed), a number
    /// JSON cannot hold is said to be that, and a token id with a fraction is named by its place.
    @Test func ambiguousBodiesAreRefusedNamingWhy() async throws {
        let server = try await TideServer()
        let twice = try await server.post(#"{"model": "m", "max_tokens": 1, "max_tokens": 3, "messages": [{"role": "user", "content": "hi"}]}"#)
        #expect(twice.status == 400, "\(twice)")
        let twiceError = try #require(twice.json["error"] as? [String: Any])
        #expect((twiceError["message"] as? String ?? "").contains("'max_tokens' twice") && twiceError["param"] as? String == "max_tokens",
                "\(twiceError)")
        let nested = try await server.post(#"{"model": "m", "messages": [{"role": "user", "content": "a", "content": "b"}]}"#)
        #expect((nested.json["error"] as? [String: Any])?["param"] as? String == "messages[0].content", "\(nested)")
        let huge = try await server.post(#"{"model": "m", "temperature": 1e400, "messages": [{"role": "user", "content": "hi"}]}"#)
        let hugeMessage = (huge.json["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(huge.status == 400 && hugeMessage.contains("not valid JSON") && hugeMessage.contains("too large"), "\(hugeMessage)")
        let fraction = try await server.send("POST", "detokenize", body: Data(#"{"tokens": [1.5]}"#.utf8))
        let fractionError = try #require(fraction.json["error"] as? [String: Any])
        #expect(fraction.status == 400 && fractionError["param"] as? String == "tokens[0]"
                    && (fractionError["message"] as? String ?? "").contains("whole token id"), "\(fractionError)")
    }
}
