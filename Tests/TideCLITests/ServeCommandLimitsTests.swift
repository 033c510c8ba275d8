import Foundation
import Testing
import TideTestSupport

extension CommandLineTests.ServeCommandTests {
    /// While one client streams, huge requests are refused (too many messages, too many
    /// characters) or tokenized off the batch thread (a prompt that then does not fit), and the
    /// stream's chunks keep arriving.
    @Test func hugeRequestsDoNotHoldUpAStreamingReply() async throws {
        // The story outlasts the huge requests whichever words it holds: its end is banned.
        let server = try await TideServer(["--parallel", "2", "--plugin", ScratchPlugins.noEndFile])
        let result = try #require(try server.python("""
            import json, sys, threading, time, httpx
            url = sys.argv[1] + "/chat/completions"
            model = "smollm2-135m-instruct"
            def user(text): return {"role": "user", "content": text}
            huge = [[user("hi")] * 40000, [user("hello there")] * 1000, [user("word " * 198000)], [user("word " * 400000)]]
            answers, window = [], []
            def send_huge():
                window.append(time.monotonic())
                for messages in huge:
                    reply = httpx.post(url, json={"model": model, "messages": messages}, timeout=120)
                    answers.append({"status": reply.status_code, "code": reply.json()["error"].get("code")})
                window.append(time.monotonic())
            stamps, sender = [], threading.Thread(target=send_huge)
            body = {"model": model, "stream": True, "max_tokens": 4000, "messages": [user("Write a very long story about a dragon.")]}
            with httpx.stream("POST", url, json=body, timeout=120) as response:
                for line in response.iter_lines():
                    if not line.startswith("data: "): continue
                    stamps.append(time.monotonic())
                    if len(stamps) == 5: sender.start()
                    if len(window) == 2 and stamps[-1] > window[1] + 0.5: break
            sender.join()
            during = [stamp for stamp in stamps if window[0] <= stamp <= window[1] + 0.5]
            gaps = [later - earlier for earlier, later in zip(during, during[1:])]
            print(json.dumps({"answers": answers, "largest_gap": max(gaps, default=99), "chunks_during": len(during),
                              "after": sum(stamp > window[1] for stamp in stamps), "took": window[1] - window[0]}))
            """) as? [String: Any])
        let answers = try #require(result["answers"] as? [[String: Any]])
        #expect(answers.map { $0["status"] as? Int } == [400, 400, 400, 400], "\(answers)")
        #expect(answers.map { $0["code"] as? String } == ["too_many_messages", "context_length_exceeded", "context_length_exceeded",
                                                          "request_too_large"], "\(answers)")
        #expect((result["after"] as? Int ?? 0) > 0, "the stream went on after the huge requests: \(result)")
        // Generous: on a loaded 2-core machine chunks can be seconds apart anyway; a request
        // tokenized on the batch's thread held every reply for 15 s (20,000 messages) to 54 s (40,000).
        let gap = try #require(result["largest_gap"] as? Double)
        #expect(gap < 8, "the largest pause between streamed chunks while huge requests were handled: \(gap) s (\(result))")
    }

    /// Requests sent in part (headers, or some of the body) are dropped after `--request-timeout`
    /// while `/health` goes on answering; a client that leaves mid-body is not logged as sending
    /// too much.
    @Test func halfSentRequestsAreDroppedAfterTheTimeout() async throws {
        let server = try await TideServer(["--request-timeout", "2"])
        let result = try #require(try server.python("""
            import json, socket, sys, time, httpx
            port = int(sys.argv[1].split(":")[2].split("/")[0])
            head = b"POST /v1/chat/completions HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nContent-Type: application/json\\r\\n"
            def opened(data):
                connection = socket.create_connection(("127.0.0.1", port))
                connection.sendall(data)
                return connection
            partial = [opened(head + b"Content-Length: 1000\\r\\n\\r\\n{\\"model\\"") for _ in range(40)]
            partial += [opened(head) for _ in range(40)]
            leaving = opened(head + b"Content-Length: 1000\\r\\n\\r\\n{\\"model\\"")
            time.sleep(0.2)
            leaving.close()
            start = time.monotonic()
            health = httpx.get(sys.argv[1].removesuffix("/v1") + "/health", timeout=5).status_code
            health_took = time.monotonic() - start
            closed = []
            for connection in partial:
                connection.settimeout(max(0.1, start + 8 - time.monotonic()))
                try:
                    data = connection.recv(4096)
                    closed.append(time.monotonic() - start if not data or b"HTTP/1.1" in data else None)
                except (socket.timeout, ConnectionResetError) as error:
                    closed.append(time.monotonic() - start if isinstance(error, ConnectionResetError) else None)
                connection.close()
            print(json.dumps({"health": health, "health_took": health_took, "closed": closed}))
            """) as? [String: Any])
        #expect(result["health"] as? Int == 200)
        #expect((result["health_took"] as? Double ?? 99) < 1, "/health answered at once: \(result)")
        let closed = try #require(result["closed"] as? [Double?])
        #expect(closed.count == 80)
        #expect(closed.allSatisfy { $0 != nil }, "every half-sent request was dropped: \(closed)")
        #expect(closed.compactMap { $0 }.max() ?? 99 < 6, "within the timeout (2 s) and a margin: \(closed)")
        let log = server.log(tail: 20000)
        #expect(!log.contains("MiB"), "a client that left mid-body is not one that sent too much: \(log)")
    }

    /// With the open-file limit low, more idle connections than it allows neither exhaust the
    /// server's file descriptors nor stop `/health`: connections past the limit wait to be
    /// accepted, and idle ones are closed after the timeout.
    @Test func manyIdleConnectionsDoNotStopHealth() async throws {
        let server = try await TideServer(["--request-timeout", "2"], openFiles: 256)
        let result = try #require(try server.python("""
            import json, socket, sys, time, httpx
            port = int(sys.argv[1].split(":")[2].split("/")[0])
            idle = []
            for _ in range(300):
                connection = socket.socket()
                connection.settimeout(0.5)
                try:
                    connection.connect(("127.0.0.1", port))
                except OSError:
                    pass
                idle.append(connection)
            start = time.monotonic()
            try:
                health = httpx.get(sys.argv[1].removesuffix("/v1") + "/health", timeout=20).status_code
            except httpx.HTTPError as error:
                health = repr(error)
            took = time.monotonic() - start
            for connection in idle: connection.close()
            print(json.dumps({"health": health, "took": took}))
            """) as? [String: Any])
        #expect(result["health"] as? Int == 200, "\(result)")
        #expect((result["took"] as? Double ?? 99) < 15, "\(result)")
        #expect(try await server.get("health")["status"] as? String == "ok")
    }

    /// A streamed reply still running when the grace ends is cut while its connection is open:
    /// the official client gets an error event that says why, not a stream that just stops.
    @Test func aStreamCutAtShutdownSaysWhy() async throws {
        // The reply never ends by itself: a plugin bans the model's end tokens.
        let server = try await TideServer(["--shutdown-grace", "3", "--plugin", ScratchPlugins.noEndFile])
        let result = try #require(try server.python("""
            import json, os, signal, sys, openai
            client = openai.OpenAI(base_url=sys.argv[1], api_key="unused")
            pieces, error, finish = [], None, None
            try:
                for chunk in client.chat.completions.create(model="m", stream=True, max_tokens=100000,
                        messages=[{"role": "user", "content": "Write a very long story about a dragon."}]):
                    for choice in chunk.choices:
                        if choice.delta.content: pieces.append(choice.delta.content)
                        if choice.finish_reason: finish = choice.finish_reason
                    if len(pieces) == 3: os.kill(int(sys.argv[2]), signal.SIGTERM)
            except openai.APIError as e:
                error = {"message": e.message, "code": e.code}
            print(json.dumps({"pieces": len(pieces), "error": error, "finish": finish}))
            """, arguments: ["\(server.processIdentifier)"]) as? [String: Any])
        let error = try #require(result["error"] as? [String: Any], "the stream ended without a word: \(result)")
        #expect((error["message"] as? String ?? "").hasPrefix("the server is shutting down: this reply was cut after "), "\(error)")
        #expect(error["code"] as? String == "server_shutting_down")
        #expect(result["finish"] is NSNull)
        #expect(server.terminate(waitingAtMost: .seconds(15)) != nil)
        #expect(server.log(tail: 2000).contains("stop cancelled, streamed"))
    }

    /// SIGTERM stops accepting, lets a running reply finish, and ends the server within the
    /// grace although a client holds a half-sent request.
    @Test func sigtermEndsTheServerWithinItsGrace() async throws {
        let server = try await TideServer(["--shutdown-grace", "5"])
        let result = try #require(try server.python("""
            import json, os, signal, socket, sys, time, httpx
            port = int(sys.argv[1].split(":")[2].split("/")[0])
            half = socket.create_connection(("127.0.0.1", port))
            half.sendall(b"POST /v1/chat/completions HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nContent-Length: 1000\\r\\n\\r\\n{")
            body = {"model": "smollm2-135m-instruct", "stream": True, "max_tokens": 6,
                    "messages": [{"role": "user", "content": "Write a story about a dragon."}]}
            lines = []
            with httpx.stream("POST", sys.argv[1] + "/chat/completions", json=body, timeout=30) as response:
                for line in response.iter_lines():
                    lines.append(line)
                    if len(lines) == 1:
                        os.kill(int(sys.argv[2]), signal.SIGTERM)
                        killed_at = time.time()
            finished = time.time() - killed_at
            time.sleep(0.3)
            try:
                httpx.get(sys.argv[1].removesuffix("/v1") + "/health", timeout=2)
                refused = False
            except httpx.HTTPError:
                refused = True
            half.settimeout(15)
            try:
                half.recv(4096)
            except OSError:
                pass
            print(json.dumps({"done": "data: [DONE]" in lines, "finished": finished, "refused": refused,
                              "half_closed": time.time() - killed_at, "killed_at": killed_at}))
            """, arguments: ["\(server.processIdentifier)"]) as? [String: Any])
        #expect(result["done"] as? Bool == true, "the running reply finished: \(result)")
        #expect(result["refused"] as? Bool == true, "no new connection is accepted once stopping: \(result)")
        let killedAt = try #require(result["killed_at"] as? Double)
        #expect(server.terminate(waitingAtMost: .seconds(15)) != nil, "the server ended")
        let took = Date().timeIntervalSince1970 - killedAt
        #expect(took < 10, "ended within the grace (5 s) and a margin, not \(took) s after SIGTERM: \(result)")
        #expect(server.log(tail: 2000).contains("tide serve: stopped"))
    }
}
