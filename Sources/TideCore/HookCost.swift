/// What one plugin's hook cost over a turn: its calls, the instructions they spent and the time
/// they took (``GenerationStatistics/hookCosts``; `--stats`, `tide run --json`).
public struct HookCost: Sendable, Hashable, Codable {
    /// The plugin's (hook's) name.
    public var plugin: String
    /// Where in the pipeline.
    public var hook: HookPoint
    /// How many times it was called.
    public var calls: Int
    /// The instructions its calls spent, as the instruction budget counts them; `nil` for a
    /// hook that does not count them (one written in Swift).
    public var instructions: Int?
    /// The time its calls took.
    public var duration: Duration

    /// Costs of `calls` calls.
    public init(plugin: String, hook: HookPoint, calls: Int = 0, instructions: Int? = nil, duration: Duration = .zero) {
        self.plugin = plugin
        self.hook = hook
        self.calls = calls
        self.instructions = instructions
        self.duration = duration
    }

    /// Adds a call that spent `instructions` and took `duration`.
    mutating func add(instructions spent: Int?, duration spentTime: Duration) {
        calls += 1
        duration += spentTime
        if let spent { instructions = (instructions ?? 0) + spent }
    }
}
