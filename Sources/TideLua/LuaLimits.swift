/// What one call into a plugin may use before Tide stops it with an error.
public struct LuaLimits: Sendable, Hashable {
    /// VM instructions per hook call (counted in steps of 1000). Library functions that loop in C
    /// (pattern matching, string.rep, table.sort, …) charge their work here too, a matcher step,
    /// a comparison or 64 bytes copied counting as one instruction.
    public var instructions: Int64 = 10_000_000
    /// Bytes the plugin's whole Lua state may hold.
    public var memoryBytes: Int = 64 << 20
    /// Wall-clock time per hook call.
    public var time: Duration = .seconds(1)

    /// The defaults: ten million instructions and one second per call, 64 MiB per plugin.
    public init() {}

    /// Limits with the given values.
    public init(instructions: Int64, memoryBytes: Int, time: Duration) {
        self.instructions = instructions
        self.memoryBytes = memoryBytes
        self.time = time
    }
}
