import Foundation

/// The memory a process has resident now (`VmRSS`), in bytes; 0 where the system does not say.
enum ResidentMemory {
    /// This process's.
    static var bytes: Int64 { bytes(ofStatus: "/proc/self/status") }

    /// The process `identifier`'s.
    static func bytes(of identifier: Int32) -> Int64 { bytes(ofStatus: "/proc/\(identifier)/status") }

    private static func bytes(ofStatus path: String) -> Int64 {
        guard let status = try? String(contentsOfFile: path, encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int64($0) })
        else { return 0 }
        return kilobytes * 1024
    }
}
