import Synchronization

/// Notes whether Lua code read what depends on when and where it runs (the clock, random
/// numbers) during a piece of work: a plugin or check that does may decide otherwise another
/// time, so what the work produced cannot stand for it later (a case given back whole,
/// docs/conversations.md). Every call of a ``LuaState`` made in ``observe(_:)``'s task and its
/// child tasks is noted.
///
/// ```swift
/// let reads = OutsideReads()
/// await reads.observe { try? LuaState().run("return os.time()", chunkName: "=example") }
/// reads.happened  // true
/// ```
public final class OutsideReads: Sendable {
    private let noted = Atomic<Bool>(false)

    /// The reads of the task running now, if it is observed.
    @TaskLocal static var current: OutsideReads?

    /// Nothing noted yet.
    public init() {}

    /// Whether a Lua call read the clock or random numbers.
    public var happened: Bool { noted.load(ordering: .relaxed) }

    /// Runs `work`, noting the reads of every Lua call made in it.
    public func observe<T: Sendable>(_ work: () async throws -> T) async rethrows -> T {
        try await Self.$current.withValue(self, operation: work)
    }

    /// Notes a read.
    func note() {
        noted.store(true, ordering: .relaxed)
    }
}
