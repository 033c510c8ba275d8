import Foundation

/// Where scripts/setup.sh keeps what the tests use besides Tide: ${XDG_CACHE_HOME:-~/.cache}/tide.
public enum SetupCache {
    /// `path` inside the cache.
    public static func folder(_ path: String) -> URL {
        let environment = ProcessInfo.processInfo.environment
        let cache = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache")
        return cache.appendingPathComponent("tide/" + path)
    }

    /// The Python of the agent clients' environment: Anthropic's SDK, OpenAI's newest client and
    /// OpenAI's Agents SDK.
    public static var agentsPython: URL { folder("agents/bin/python") }
}
