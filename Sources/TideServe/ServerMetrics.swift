import Foundation
import Hummingbird
import Prometheus
import TideCore

/// `tide serve --metrics`: what the server has done, for Prometheus' scrapers, kept by
/// swift-prometheus and written in Prometheus' text format at `GET /metrics`:
/// - `tide_requests_total{endpoint, status}`: requests answered, by path and HTTP status;
/// - `tide_prompt_tokens_total`, `tide_prompt_tokens_cached_total`, `tide_generated_tokens_total`;
/// - `tide_time_to_first_token_seconds` (from the request's arrival, as its client waits, the wait
///   for a sequence included), `tide_sequence_wait_seconds` (from the request's arrival to its
///   sequences being lent) and `tide_time_per_output_token_seconds` (a reply's mean time between
///   its tokens), histograms;
/// - `tide_plugin_seconds_total` (time in the plugins' hooks), `tide_tool_calls_total{runs_on}`
///   (`server` for the plugins' tools, `client` for calls left to the client);
/// - gauges read when scraped: `tide_requests_waiting`, `tide_sequences_busy`, `tide_sequences`,
///   `tide_kv_cache_tokens` and `tide_kv_cache_usage_ratio` (tokens held in every sequence's cache,
///   and their share of all the sequences' room).
final class ServerMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let promptTokens: Counter
    private let cachedPromptTokens: Counter
    private let generatedTokens: Counter
    private let timeToFirstToken: DurationHistogram
    private let sequenceWait: DurationHistogram
    private let timePerToken: DurationHistogram
    private let pluginSeconds: Counter
    private let serverToolCalls: Counter
    private let clientToolCalls: Counter
    private let waiting: Gauge
    private let busy: Gauge
    private let sequences: Gauge
    private let cacheTokens: Gauge
    private let cacheUsage: Gauge

    init() {
        promptTokens = registry.makeCounter(name: "tide_prompt_tokens_total", help: "Prompt tokens of the replies made")
        cachedPromptTokens = registry.makeCounter(name: "tide_prompt_tokens_cached_total",
                                                  help: "Prompt tokens found in a sequence's cache, not evaluated again")
        generatedTokens = registry.makeCounter(name: "tide_generated_tokens_total", help: "Tokens generated")
        let latencies: [Duration] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30].map { .milliseconds(Int($0 * 1000)) }
        timeToFirstToken = registry.makeDurationHistogram(name: "tide_time_to_first_token_seconds", buckets: latencies,
                                                          help: "Time from a request's arrival to its first token")
        sequenceWait = registry.makeDurationHistogram(name: "tide_sequence_wait_seconds", buckets: latencies,
                                                      help: "Time from a request's arrival to its sequences being lent")
        timePerToken = registry.makeDurationHistogram(name: "tide_time_per_output_token_seconds", buckets: latencies,
                                                      help: "A reply's mean time between two of its tokens")
        pluginSeconds = registry.makeCounter(name: "tide_plugin_seconds_total", help: "Time spent in the plugins' hooks")
        let tools = "Tool calls: run by the server's plugins, or left to the client"
        serverToolCalls = registry.makeCounter(name: "tide_tool_calls_total", labels: [("runs_on", "server")], help: tools)
        clientToolCalls = registry.makeCounter(name: "tide_tool_calls_total", labels: [("runs_on", "client")], help: tools)
        waiting = registry.makeGauge(name: "tide_requests_waiting", help: "Requests waiting for a free sequence")
        busy = registry.makeGauge(name: "tide_sequences_busy", help: "Sequences making a reply")
        sequences = registry.makeGauge(name: "tide_sequences", help: "Sequences of the batch")
        cacheTokens = registry.makeGauge(name: "tide_kv_cache_tokens", help: "Tokens held in the sequences' KV caches")
        cacheUsage = registry.makeGauge(name: "tide_kv_cache_usage_ratio", help: "Tokens held in the KV caches, over all the sequences' room")
    }

    /// Counts a request to `endpoint` answered with `status`.
    func countRequest(endpoint: String, status: Int) {
        registry.makeCounter(name: "tide_requests_total", labels: [("endpoint", endpoint), ("status", "\(status)")],
                             help: "Requests answered, by endpoint and HTTP status").increment()
    }

    /// Adds what a finished reply made and took, `waited` from its request's arrival before it had a sequence.
    func record(_ summary: ReplySummary, waited: Duration) {
        let statistics = summary.statistics
        promptTokens.increment(by: Int64(statistics.promptTokens))
        cachedPromptTokens.increment(by: Int64(statistics.reusedPromptTokens))
        generatedTokens.increment(by: Int64(statistics.generatedTokens))
        sequenceWait.record(waited)
        if let first = statistics.timeToFirstToken { timeToFirstToken.record(waited + first) }
        if statistics.generatedTokens > 1 { timePerToken.record(statistics.decodeDuration / (statistics.generatedTokens - 1)) }
        pluginSeconds.increment(by: statistics.hookDuration.seconds)
        serverToolCalls.increment(by: Int64(statistics.toolResults.count))
        clientToolCalls.increment(by: Int64(summary.toolCalls.count))
    }

    /// The metrics in Prometheus' text format, the gauges read now from the sequences of the
    /// loaded `models`, together.
    func text(models: [LoadedModel]) async -> String {
        var held = 0, waiting = 0, busy = 0, capacity = 0, room = 0
        for model in models {
            held += await model.pool.cachedTokens
            waiting += await model.pool.waiting
            busy += await model.pool.busy
            capacity += model.pool.capacity
            room += model.pool.capacity * model.contextSize
        }
        self.waiting.set(Int64(waiting))
        self.busy.set(Int64(busy))
        sequences.set(Int64(capacity))
        cacheTokens.set(Int64(held))
        cacheUsage.set(Double(held) / Double(max(1, room)))
        return registry.emitToString()
    }
}

/// Counts every request answered, by path and status (``ServerMetrics/countRequest(endpoint:status:)``),
/// those refused before an endpoint (a missing key) included. A path that is none of the
/// server's `paths` is counted as `other`, so that a client cannot make a label of every path it tries.
struct RequestCounting: RouterMiddleware {
    typealias Context = BasicRequestContext
    let metrics: ServerMetrics
    let paths: Set<String>

    /// The endpoint `path` asks for, among `paths` (whose `:name` segments take any value):
    /// written with `{name}` for such a segment (`/v1/responses/{id}`); `other` for none.
    static func endpoint(of path: String, among paths: Set<String>) -> String {
        if paths.contains(path) { return path }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        for pattern in paths.sorted() where pattern.contains(":") {
            let parts = pattern.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == segments.count,
                  zip(parts, segments).allSatisfy({ $0.hasPrefix(":") ? !$1.isEmpty : $0 == $1 }) else { continue }
            return parts.map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
        }
        return "other"
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response = try await next(request, context)
        metrics.countRequest(endpoint: Self.endpoint(of: request.uri.path, among: paths), status: response.status.code)
        return response
    }
}
