/// What one call into a plugin may use before Tide stops it with an error.
public struct LuaLimits: Sendable, Hashable {
    /// VM instructions per hook call (counted in steps of 1000): the work a call may do, the same
    /// on any machine however busy. Library functions that loop in C (pattern matching,
    /// string.rep, table.sort, …), the allocator and the `tide.*` functions charge their work
    /// here too, a matcher step, a comparison or 64 bytes copied or allocated counting as one
    /// instruction (docs/plugins.md, "The sandbox").
    public var instructions: Int64 = 10_000_000
    /// Bytes the plugin's whole Lua state may hold.
    public var memoryBytes: Int = 64 << 20
    /// Wall-clock time per hook call: only a guard against work the budget cannot count (see
    /// docs/plugins.md, "The sandbox"): the slowest work the budget counts spends it all in under
    /// a second on the machines Tide is measured on (docs/speed.md), so that no hook within its
    /// budget reaches the guard even on a machine slowed ten times.
    public var time: Duration = .seconds(30)

    /// The defaults: ten million instructions and a thirty-second guard per call, 64 MiB per plugin.
    public init() {}

    /// Limits with the given values.
    public init(instructions: Int64, memoryBytes: Int, time: Duration) {
        self.instructions = instructions
        self.memoryBytes = memoryBytes
        self.time = time
    }
}
