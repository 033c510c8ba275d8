import CLlama
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// How many threads each `llama_decode` of a context uses: as many as the cores that the
/// machine's other work leaves free, never more than the context was given, at least one.
///
/// llama.cpp's CPU threads wait for each other at a barrier after every operation of the graph,
/// spinning, never sleeping. When more threads want the cores than there are cores, a thread
/// spins away its time slice waiting for one that is not running, hundreds of times per token
/// (docs/speed.md, "Sharing the cores"). With one thread per free core, nothing waits at a
/// barrier for a thread that is not running, and processes share the cores as they would share
/// any work.
///
/// Before each decode, the share reads how many tasks of other processes are ready to run
/// (``runnableElsewhere()``) and takes the cores they leave. Fewer threads are used at once where two readings in a row say so (or on the first
/// decode); a single busy reading is most often a task that runs for a moment. More threads
/// are used again once the readings have said so for ``raiseAfter``. Where there is no
/// `/proc/loadavg`, or the context was given a thread count, the count is fixed.
///
/// The thread count changes only how fast a decode is, never what it computes: it is used
/// only where llama.cpp computes the same scores on one thread as on all of them, which the
/// batch probe checks for each model, thread count and kernel (``BatchFacts/sameOnOneThread``).
struct ThreadShare {
    /// The most threads a decode uses.
    let most: Int
    /// Whether the count follows the machine's load: asked once, before the first decode.
    private let followsLoad: @Sendable () -> Bool
    private var adapts: Bool?
    /// The threads the next decode uses.
    private(set) var current: Int
    /// Readings in a row that left fewer cores than ``current``.
    private var crowdedReadings = 0
    /// Since when the readings have left more cores than ``current``.
    private var roomySince: ContinuousClock.Instant?
    /// Whether a decode has been sized yet.
    private var started = false
    private let cores: Int
    private let readOthers: @Sendable () -> Int?

    /// How long the readings must leave more cores free before a decode uses them.
    static let raiseAfter = Duration.milliseconds(100)

    /// A share of at most `most` threads on a machine of `cores` cores; it follows the machine's
    /// load when `followsLoad` says so (asked before the first decode), reading other processes'
    /// runnable tasks with `readOthers`.
    init(most: Int, cores: Int = LlamaContextOptions.coreCount, followsLoad: @escaping @Sendable () -> Bool,
         readOthers: @escaping @Sendable () -> Int? = ThreadShare.runnableElsewhere) {
        self.most = max(1, most)
        self.followsLoad = followsLoad
        self.cores = cores
        self.readOthers = readOthers
        current = self.most
    }

    /// The threads for the next decode, after a reading of the machine's load.
    mutating func next(now: ContinuousClock.Instant = .now) -> Int {
        let adapts = self.adapts ?? (most > 1 && followsLoad())
        self.adapts = adapts
        guard adapts, let others = readOthers() else { return current }
        let free = min(most, max(1, cores - others))
        if free < current {
            crowdedReadings += 1
            roomySince = nil
            if crowdedReadings >= 2 || !started { current = free }
        } else {
            crowdedReadings = 0
            if free > current {
                let since = roomySince ?? now
                roomySince = since
                if now - since >= Self.raiseAfter {
                    current = free
                    roomySince = nil
                }
            } else {
                roomySince = nil
            }
        }
        started = true
        return current
    }

    /// Sets `context`'s threads for its next decode (``next(now:)``).
    mutating func size(_ context: OpaquePointer) {
        let threads = Int32(next())
        if threads != llama_n_threads(context) { llama_set_n_threads(context, threads, threads) }
    }

    /// Tasks of other processes ready to run now: those `/proc/loadavg` counts on the whole
    /// machine (the number before the slash in its fourth field), less this process's threads
    /// that are running or ready (state `R` in `/proc/self/task/*/stat`), which are only read when
    /// the machine counts more than one; `nil` where `/proc/loadavg` cannot be read.
    @Sendable static func runnableElsewhere() -> Int? {
        #if os(Linux)
        guard let everywhere = readSmallFile("/proc/loadavg").flatMap(parseRunnable) else { return nil }
        guard everywhere > 1, let tasks = opendir("/proc/self/task") else { return max(0, everywhere - 1) }
        defer { closedir(tasks) }
        var here = 0
        while let entry = readdir(tasks) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.first?.isNumber == true, let stat = readSmallFile("/proc/self/task/\(name)/stat"),
                  let close = stat.lastIndex(of: UInt8(ascii: ")")), stat.index(close, offsetBy: 2) < stat.endIndex else { continue }
            if stat[stat.index(close, offsetBy: 2)] == UInt8(ascii: "R") { here += 1 }
        }
        // A thread of this process that was about to sleep when the machine was first read has
        // slept by now: a second reading leaves it out, while other processes' work is still there.
        let again = readSmallFile("/proc/loadavg").flatMap(parseRunnable) ?? everywhere
        return max(0, min(everywhere, again) - max(1, here))
        #else
        return nil
        #endif
    }

    #if os(Linux)
    /// The first 512 bytes of a file under `/proc`; `nil` if it cannot be read.
    private static func readSmallFile(_ path: String) -> [UInt8]? {
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return nil }
        defer { Glibc.close(file) }
        var bytes = [UInt8](repeating: 0, count: 512)
        let count = bytes.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) }
        return count > 0 ? Array(bytes[..<count]) : nil
    }
    #endif

    /// The runnable count in the text of `/proc/loadavg` ("0.52 0.58 0.59 3/456 12345").
    static func parseRunnable(_ text: some Collection<UInt8>) -> Int? {
        let fields = text.split(separator: UInt8(ascii: " "))
        guard fields.count >= 4, let slash = fields[3].firstIndex(of: UInt8(ascii: "/")) else { return nil }
        return Int(String(decoding: fields[3][..<slash], as: UTF8.self))
    }
}
