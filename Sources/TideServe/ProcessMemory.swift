#if canImport(Glibc)
import Glibc
#endif

/// glibc's allocator, asked to give memory back: a server that loads and unloads models frees
/// hundreds of MB at a time, from threads that come and go with each model's batch. glibc keeps
/// what a thread frees in that thread's arena for reuse, up to eight arenas a core; measured
/// switching between two small models with streams cut mid-reply (`tide bench --only
/// serve-models`), the server's resident memory grew by about 50 MB over its first 30 loads
/// with the defaults, 22 MB over 100 with the arenas trimmed, and stayed within a few MB with
/// the arenas limited to the cores (docs/benchmarks.md). Elsewhere than glibc, these do nothing.
public enum ProcessMemory {
    /// At most `count` arenas (glibc's `M_ARENA_MAX`); call before the threads start.
    public static func limitArenas(to count: Int) {
        #if canImport(Glibc)
        typealias Option = @convention(c) (Int32, Int32) -> Int32
        let arenaMaximum: Int32 = -8  // M_ARENA_MAX in malloc.h
        if let symbol = glibcSymbol("mallopt") { _ = unsafeBitCast(symbol, to: Option.self)(arenaMaximum, Int32(clamping: max(1, count))) }
        #endif
    }

    /// Gives the memory the arenas hold free back to the system (glibc's `malloc_trim`).
    static func returnFreed() {
        #if canImport(Glibc)
        typealias Trim = @convention(c) (Int) -> Int32
        if let symbol = glibcSymbol("malloc_trim") { _ = unsafeBitCast(symbol, to: Trim.self)(0) }
        #endif
    }

    #if canImport(Glibc)
    /// A function of glibc's allocator that Swift's Glibc module leaves out (malloc.h).
    private static func glibcSymbol(_ name: String) -> UnsafeMutableRawPointer? {
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), name)
    }
    #endif
}
