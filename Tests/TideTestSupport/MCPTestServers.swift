import Foundation

/// MCP servers for the tests of `--mcp`: the reference servers from PyPI and the tests' own
/// misbehaving server (Tests/Fixtures/mcp/misbehaving_server.py, written with the official
/// Python SDK), all in the virtual environment scripts/setup.sh makes for them.
public enum MCPTestServers {
    /// The environment's `bin` folder: ${XDG_CACHE_HOME:-~/.cache}/tide/mcp/bin.
    public static var bin: URL { SetupCache.folder("mcp/bin") }

    /// The reference time server's command.
    public static var time: [String] { [bin.appendingPathComponent("mcp-server-time").path, "--local-timezone", "UTC"] }

    /// The reference git server's command, on the repository `repository`.
    public static func git(repository: String) -> [String] { [bin.appendingPathComponent("mcp-server-git").path, "--repository", repository] }

    /// The misbehaving server's file.
    public static let misbehavingFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/mcp/misbehaving_server.py")

    /// The misbehaving server's command in `mode` (`fail-at-start`, `silent`, `stubborn`, or
    /// `""` to behave), with `marker` as a last argument it ignores, so that a test can look for
    /// its process.
    public static func misbehaving(_ mode: String = "", marker: String = UUID().uuidString) -> [String] {
        [bin.appendingPathComponent("python").path, misbehavingFile.path, mode, marker]
    }

    /// Whether a process whose command line holds `marker` is running.
    public static func isRunning(marker: String) -> Bool {
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return folders.contains { folder in
            guard Int(folder) != nil, let data = FileManager.default.contents(atPath: "/proc/\(folder)/cmdline") else { return false }
            // A zombie has an empty command line: it has ended.
            return String(decoding: data, as: UTF8.self).contains(marker)
        }
    }

    /// Why the servers cannot run here, or `nil` when they can.
    public static var missing: String? {
        FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("mcp-server-time").path)
            ? nil : "the MCP servers are not installed in \(bin.deletingLastPathComponent().path): run scripts/setup.sh"
    }
}
