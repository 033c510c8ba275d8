import TideCore
import TideLlama

/// What each shipped plugin costs a reply, side by side (`tide bench --only plugins`): each
/// alone on the same greedy reply, its hooks' calls, instructions and time per generated token,
/// and their share of the reply's time, the medians of the rounds. Plugins whose hooks run only
/// around tool calls cost a reply without them nothing and are listed as such.
struct PluginCostBenchmark {
    let model: LlamaModel
    /// The plugins, each set up so that it works at every token without ending the reply early.
    let plugins: [any ChatHook]
    let tokens: Int
    let rounds: Int
    let threads: Int?

    struct Row: Sendable {
        /// The plugin's spec.
        var plugin: String
        /// Its hooks that were called, by name (`should_stop`, `on_token`, …).
        var hooks: [String]
        /// Median calls per generated token.
        var callsPerToken: Double
        /// Median instructions per generated token.
        var instructionsPerToken: Double
        /// Median time per generated token, in microseconds.
        var microsecondsPerToken: Double
        /// Median share of the reply's time spent in the plugin.
        var share: Double
    }

    func run() async throws -> [Row] {
        let backend = try LlamaBackend(model: model, options: LlamaContextOptions(contextSize: 1024, threads: threads), template: .raw)
        var parameters = GenerationParameters()
        parameters.temperature = 0
        parameters.maxTokens = tokens
        var rows: [Row] = []
        for plugin in plugins {
            var calls: [Double] = [], instructions: [Double] = [], times: [Double] = [], shares: [Double] = []
            var hooks: [String] = []
            for _ in 0..<rounds {
                backend.clearCache()
                let session = ChatSession(backend: backend, parameters: parameters, hooks: [plugin])
                session.countsInstructions = true
                guard let statistics = try await session.reply(to: "Once upon a time").collect().summary?.statistics else { continue }
                let costs = statistics.hookCosts ?? []
                let perToken = Double(max(statistics.generatedTokens, 1))
                hooks = costs.map(\.hook.rawValue)
                let spent = costs.reduce(Duration.zero) { $0 + $1.duration }
                calls.append(Double(costs.reduce(0) { $0 + $1.calls }) / perToken)
                instructions.append(Double(costs.reduce(0) { $0 + ($1.instructions ?? 0) }) / perToken)
                times.append(spent.seconds * 1e6 / perToken)
                shares.append(statistics.replyDuration > .zero ? spent.seconds / statistics.replyDuration.seconds : 0)
            }
            backend.clearCache()
            rows.append(Row(plugin: plugin.specification, hooks: hooks, callsPerToken: median(calls),
                            instructionsPerToken: median(instructions), microsecondsPerToken: median(times), share: median(shares)))
        }
        return rows
    }
}
