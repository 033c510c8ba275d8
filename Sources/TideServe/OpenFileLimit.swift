#if canImport(Glibc)
import Glibc

private let openFiles = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
#elseif canImport(Darwin)
import Darwin

private let openFiles = RLIMIT_NOFILE
#endif

/// The process's limit on open files (`ulimit -n`), which bounds the connections a server can
/// hold: each takes a file descriptor.
public enum OpenFileLimit {
    /// Raises the soft limit to the hard one, as far as the system allows, and returns the limit now in force.
    public static func raise() -> Int {
        var limit = rlimit()
        guard getrlimit(openFiles, &limit) == 0 else { return 256 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(openFiles, &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }
}
