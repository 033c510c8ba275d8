import TideCore

/// What one plugin's hook cost over a reply (``TideCore/HookCost``) in `--json` output (`tide
/// generate`, `tide run`): its calls, the instructions they spent (absent where they were not
/// counted), their time, each also per generated token, and their share of the reply's time.
public struct PluginCostJSON: Encodable {
    public var plugin: String
    public var hook: String
    public var calls: Int
    public var instructions: Int?
    public var instructions_per_token: Double?
    public var seconds: Double
    public var microseconds_per_token: Double
    public var share: Double?

    /// The cost of `cost` over a reply with `statistics`.
    public init(_ cost: HookCost, of statistics: GenerationStatistics) {
        let tokens = Double(max(statistics.generatedTokens, 1))
        plugin = cost.plugin
        hook = cost.hook.rawValue
        calls = cost.calls
        instructions = cost.instructions
        instructions_per_token = cost.instructions.map { Double($0) / tokens }
        seconds = cost.duration.seconds
        microseconds_per_token = cost.duration.seconds * 1e6 / tokens
        let whole = statistics.replyDuration.seconds
        share = whole > 0 ? cost.duration.seconds / whole : nil
    }

    /// The costs of every plugin's hooks over a reply with `statistics`; `nil` when none was called.
    public static func all(of statistics: GenerationStatistics) -> [PluginCostJSON]? {
        statistics.hookCosts.map { $0.map { PluginCostJSON($0, of: statistics) } }
    }
}
