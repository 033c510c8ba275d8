import Foundation
import Testing
import TideTestSupport

extension CommandLineTests.ServeCommandTests {
    /// `tide serve --metrics` answers `GET /metrics` in Prometheus' text format, which
    /// `prometheus_client`'s own parser reads: every family, the requests counted by endpoint and
    /// status (a refused key and an unknown path too), the tokens those of the replies' `usage`.
    /// The endpoint is behind `--api-key` like the rest, and a server without `--metrics` says how
    /// to get them.
    @Test func metricsAreReadByPrometheusClient() async throws {
        let server = try await TideServer(["--metrics", "--api-key", "k"])
        let result = try #require(try server.python("""
            import json, sys, urllib.request, urllib.error, openai
            from prometheus_client.parser import text_string_to_metric_families
            base = sys.argv[1].removesuffix("/v1")
            client = openai.OpenAI(base_url=sys.argv[1], api_key="k")
            usage = [client.chat.completions.create(model="m", max_tokens=3, messages=[{"role": "user", "content": text}]).usage
                     for text in ["Hi", "Name a river."]]
            statuses = []
            for path, key in [("/metrics", None), ("/no-such-path", "k")]:
                request = urllib.request.Request(base + path, headers={"Authorization": f"Bearer {key}"} if key else {})
                try:
                    statuses.append(urllib.request.urlopen(request).status)
                except urllib.error.HTTPError as error:
                    statuses.append(error.code)
            request = urllib.request.Request(base + "/metrics", headers={"Authorization": "Bearer k"})
            families = {family.name: [[sample.name, sample.labels, sample.value] for sample in family.samples]
                        for family in text_string_to_metric_families(urllib.request.urlopen(request).read().decode())}
            print(json.dumps({"families": families, "statuses": statuses,
                "prompt_tokens": sum(u.prompt_tokens for u in usage), "completion_tokens": sum(u.completion_tokens for u in usage)}))
            """) as? [String: Any])
        #expect(result["statuses"] as? [Int] == [401, 404])
        let families = try #require(result["families"] as? [String: [[Any]]])
        for name in ["tide_requests", "tide_prompt_tokens", "tide_prompt_tokens_cached", "tide_generated_tokens",
                     "tide_time_to_first_token_seconds", "tide_sequence_wait_seconds", "tide_time_per_output_token_seconds", "tide_plugin_seconds", "tide_tool_calls",
                     "tide_requests_waiting", "tide_sequences_busy", "tide_sequences", "tide_kv_cache_tokens", "tide_kv_cache_usage_ratio"] {
            #expect(families[name] != nil, "\(name) missing from \(families.keys.sorted())")
        }
        func value(_ family: String, _ sample: String? = nil, _ labels: [String: String] = [:]) -> Double? {
            families[family]?.first { ($0[0] as? String) == (sample ?? family) && ($0[1] as? [String: String] ?? [:]) == labels }?[2] as? Double
        }
        #expect(value("tide_requests", "tide_requests_total", ["endpoint": "/v1/chat/completions", "status": "200"]) == 2)
        #expect(value("tide_requests", "tide_requests_total", ["endpoint": "/metrics", "status": "401"]) == 1)
        #expect(value("tide_requests", "tide_requests_total", ["endpoint": "other", "status": "404"]) == 1)
        #expect(value("tide_prompt_tokens", "tide_prompt_tokens_total") == result["prompt_tokens"] as? Double)
        #expect(value("tide_generated_tokens", "tide_generated_tokens_total") == result["completion_tokens"] as? Double)
        #expect(value("tide_time_to_first_token_seconds", "tide_time_to_first_token_seconds_count") == 2)
        #expect(value("tide_sequences") == 4 && value("tide_sequences_busy") == 0 && value("tide_requests_waiting") == 0)
        #expect((value("tide_kv_cache_tokens") ?? 0) > 0, "the sequences' caches hold the conversations")

        let plain = try await TideServer()
        let (status, json, _) = try await plain.send("GET", "metrics")
        #expect(status == 501 && ((json["error"] as? [String: Any])?["message"] as? String ?? "").contains("--metrics"), "\(json)")
    }

    /// Time to first token counts from the request's arrival, as its client waits: a request
    /// that waited for the one sequence while another reply ran has that wait in its figure, and
    /// the wait has a histogram of its own.
    @Test func timeToFirstTokenCountsTheWaitForASequence() async throws {
        let server = try await TideServer(["--metrics", "--parallel", "1", "--plugin", ScratchPlugins.noEndFile])
        let result = try #require(try server.python("""
            import json, sys, threading, urllib.request, openai
            from prometheus_client.parser import text_string_to_metric_families
            client = openai.OpenAI(base_url=sys.argv[1], api_key="k")
            def ask(tokens):
                client.chat.completions.create(model="m", max_tokens=tokens, messages=[{"role": "user", "content": "Tell a story."}])
            long = threading.Thread(target=ask, args=(60,))
            long.start()
            while json.load(urllib.request.urlopen(sys.argv[1].removesuffix("/v1") + "/health"))["busy"] == 0: pass
            ask(1)
            long.join()
            samples = {sample.name: sample.value for family in text_string_to_metric_families(
                urllib.request.urlopen(sys.argv[1].removesuffix("/v1") + "/metrics").read().decode()) for sample in family.samples
                if not sample.labels.get("le")}
            print(json.dumps({name: samples.get(name) for name in ["tide_sequence_wait_seconds_count", "tide_sequence_wait_seconds_sum",
                "tide_time_to_first_token_seconds_sum", "tide_time_to_first_token_seconds_count"]}))
            """) as? [String: Double])
        #expect(result["tide_sequence_wait_seconds_count"] == 2 && result["tide_time_to_first_token_seconds_count"] == 2, "\(result)")
        let waited = try #require(result["tide_sequence_wait_seconds_sum"])
        let first = try #require(result["tide_time_to_first_token_seconds_sum"])
        // The second request waited while the first generated its tokens: that wait is in its time to first token.
        #expect(waited > 0 && first > waited, "\(result)")
    }
}
