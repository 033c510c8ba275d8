import Foundation

/// Finds plugin files: a path, or a name looked up in `./Plugins`, then in
/// `$XDG_CONFIG_HOME/tide/plugins` (by default `~/.config/tide/plugins`).
public struct PluginLocator: Sendable {
    /// The folders searched for names, in order.
    public var directories: [URL]

    /// A locator searching `directories`.
    public init(directories: [URL]) {
        self.directories = directories
    }

    /// The standard search path.
    public static var standard: PluginLocator {
        let environment = ProcessInfo.processInfo.environment
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config")
        return PluginLocator(directories: [
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("Plugins"),
            config.appendingPathComponent("tide/plugins"),
        ])
    }

    /// Whether `name` is a path to a file rather than a name to look up.
    public static func isPath(_ name: String) -> Bool {
        name.contains("/") || name.hasSuffix(".lua")
    }

    /// The plugin files in ``directories``, folder by folder, sorted by name within each.
    public func pluginFiles() -> [URL] {
        directories.flatMap { directory in
            ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
                .filter { $0.hasSuffix(".lua") }.sorted()
                .map { directory.appendingPathComponent($0) }
        }
    }

    /// The names that ``locate(_:)`` finds, each once, sorted.
    public func pluginNames() -> [String] {
        Set(pluginFiles().map { $0.deletingPathExtension().lastPathComponent }).sorted()
    }

    /// The file for `name`: itself if it contains `/` or ends in `.lua`, else `NAME.lua` in the first folder that has it.
    public func locate(_ name: String) throws(PluginError) -> URL {
        if Self.isPath(name) {
            let url = URL(fileURLWithPath: name)
            guard FileManager.default.fileExists(atPath: url.path) else { throw .notFound(name, searched: [url.path]) }
            return url
        }
        for directory in directories {
            let candidate = directory.appendingPathComponent("\(name).lua")
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
        }
        throw .notFound(name, searched: directories.map(\.path))
    }
}
