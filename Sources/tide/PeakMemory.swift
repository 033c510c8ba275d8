import Foundation

/// The most memory this process has had resident since it started.
enum PeakMemory {
    /// Bytes, or `nil` where the system does not say.
    ///
    /// On Linux this is `VmHWM` from /proc/self/status: unlike `getrusage`, it does not count
    /// what the parent had resident when it launched this program.
    static var bytes: Int64? {
        #if os(Linux)
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int64($0) })
        else { return nil }
        return kilobytes * 1024
        #else
        var usage = rusage()
        guard getrusage(RUSAGE_SELF, &usage) == 0 else { return nil }
        return Int64(usage.ru_maxrss)
        #endif
    }
}
