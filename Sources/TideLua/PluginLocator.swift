import Foundation
import ShippedPlugins
import TideCore
import TideFiles

/// Finds plugins: a path, or a name looked up in `./Plugins`, then in
/// `$XDG_CONFIG_HOME/tide/plugins` (by default `~/.config/tide/plugins`), then among the plugins
/// shipped in the binary (``ShippedPlugins``). A file of the same name in a folder takes
/// precedence over a shipped plugin, so a user can change one by copying it.
public struct PluginLocator: Sendable {
    /// The folders searched for names, in order.
    public var directories: [URL]
    /// Whether a name no folder has is looked up among the shipped plugins.
    public var includesShipped: Bool

    /// A locator searching `directories`, then (with `includesShipped`) the shipped plugins.
    public init(directories: [URL], includesShipped: Bool = true) {
        self.directories = directories
        self.includesShipped = includesShipped
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

    /// A plugin found by name or path.
    public struct Found: Sendable, Hashable {
        /// Where a plugin comes from.
        public enum Origin: Sendable, Hashable {
            /// A file on disk.
            case file(URL)
            /// Compiled into the binary.
            case shipped
        }

        /// The plugin's name: its file name without `.lua`.
        public let name: String
        /// Where it comes from.
        public let origin: Origin

        /// What messages call it: the file's path, or `(shipped)/NAME.lua`.
        public var path: String {
            switch origin {
            case .file(let url): url.path
            case .shipped: "(shipped)/\(name).lua"
            }
        }

        /// Where it comes from, for a listing: the file's folder, or "shipped with tide".
        public var place: String {
            switch origin {
            case .file(let url): url.deletingLastPathComponent().path
            case .shipped: Self.shippedPlace
            }
        }

        /// What ``place`` says of a shipped plugin.
        public static let shippedPlace = "shipped with tide"

        /// The Lua source.
        public func source() throws(PluginError) -> String {
            switch origin {
            case .shipped:
                guard let source = ShippedPlugins.source(of: name) else { throw .notFound(name, searched: [PluginLocator.shippedPlaces]) }
                return source
            case .file(let url):
                do {
                    return String(decoding: try InputFile.contents(of: url.path, what: "plugin", limit: PluginSource.fileSizeLimit),
                                  as: UTF8.self)
                } catch {
                    throw .unreadable(error.description)
                }
            }
        }
    }

    /// Every plugin in lookup order: folder by folder (sorted by name within each; a plugin's
    /// test file, `NAME_test.lua`, is not a plugin), then the shipped ones. A name may appear more
    /// than once; ``locate(_:)`` finds its first.
    public func available() -> [Found] {
        let files = directories.flatMap { directory in
            ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
                .filter { $0.hasSuffix(".lua") && !$0.hasSuffix("_test.lua") }.sorted()
                .map { Found(name: String($0.dropLast(4)), origin: .file(directory.appendingPathComponent($0))) }
        }
        return files + (includesShipped ? ShippedPlugins.all.map { Found(name: $0.name, origin: .shipped) } : [])
    }

    /// The names that ``locate(_:)`` finds, each once, sorted.
    public func pluginNames() -> [String] {
        Set(available().map(\.name)).sorted()
    }

    /// What messages call the shipped plugins among the places searched.
    static let shippedPlaces = "the shipped plugins"

    /// What the searched places are called in a message.
    private var searched: [String] {
        directories.map(\.path) + (includesShipped ? [Self.shippedPlaces] : [])
    }

    /// The plugin `name` means: the file itself if the name contains `/` or ends in `.lua`, else
    /// `NAME.lua` in the first folder that has it, else the shipped plugin of that name.
    public func locate(_ name: String) throws(PluginError) -> Found {
        if PluginSpec.isPath(name) {
            let url = URL(fileURLWithPath: name)
            guard FileManager.default.fileExists(atPath: url.path) else { throw .notFound(name, searched: [url.path]) }
            return Found(name: url.deletingPathExtension().lastPathComponent, origin: .file(url))
        }
        for directory in directories {
            let candidate = directory.appendingPathComponent("\(name).lua")
            if FileManager.default.fileExists(atPath: candidate.path) { return Found(name: name, origin: .file(candidate)) }
        }
        if includesShipped, ShippedPlugins.source(of: name) != nil { return Found(name: name, origin: .shipped) }
        throw .notFound(name, searched: searched)
    }
}
