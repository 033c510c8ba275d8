import Foundation

/// Where model files live: `$XDG_CACHE_HOME/tide/models` (by default `~/.cache/tide/models`).
public struct ModelStore: Sendable, Hashable {
    /// The folder holding model files.
    public let directory: URL

    /// A store in `directory`.
    public init(directory: URL) {
        self.directory = directory
    }

    /// The user's store, following the XDG base directory rules.
    public static var standard: ModelStore {
        let environment = ProcessInfo.processInfo.environment
        let cache = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache")
        return ModelStore(directory: cache.appendingPathComponent("tide/models"))
    }

    /// The path a registry model has in this store.
    public func path(for entry: ModelEntry) -> URL {
        directory.appendingPathComponent(entry.fileName)
    }

    /// Whether a registry model's file is present (and of the right size, when known).
    public func isInstalled(_ entry: ModelEntry) -> Bool {
        guard let size = Self.fileSize(path(for: entry)) else { return false }
        return entry.sizeBytes.map { $0 == size } ?? true
    }

    /// Finds the model a user named: a registry name, or a path to a GGUF file.
    ///
    /// Anything containing a `/` or ending in `.gguf` is taken as a path; it is not checked
    /// here, so that loading can report precisely what is wrong with the file.
    public func resolve(_ name: String) throws(ModelLookupError) -> ResolvedModel {
        if Self.isPath(name) {
            return ResolvedModel(path: URL(fileURLWithPath: name).standardizedFileURL.path, entry: nil)
        }
        guard let entry = ModelRegistry.entry(named: name) else { throw .unknownModel(name) }
        guard isInstalled(entry) else { throw .notInstalled(entry.id, expectedAt: path(for: entry).path) }
        return ResolvedModel(path: path(for: entry).path, entry: entry)
    }

    /// Whether a model name is a path: it holds a `/` or ends in `.gguf`.
    public static func isPath(_ name: String) -> Bool {
        name.contains("/") || name.lowercased().hasSuffix(".gguf")
    }

    /// The size of the file at `url`, if there is one.
    static func fileSize(_ url: URL) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value
    }
}

/// A model ready to load: its file, and its registry entry when it has one.
public struct ResolvedModel: Sendable, Hashable {
    /// The GGUF file.
    public var path: String
    /// The registry entry (template, EOS strings, system prompt), if the model was named.
    public var entry: ModelEntry?
}

/// A model name that cannot be turned into a file.
public enum ModelLookupError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Neither a registry name nor a path.
    case unknownModel(String)
    /// A registry model whose file has not been fetched.
    case notInstalled(String, expectedAt: String)

    public var description: String {
        switch self {
        case .unknownModel(let name):
            "unknown model '\(name)': known models are "
                + ModelRegistry.entries.map(\.id).joined(separator: ", ")
                + ", a remote model or a preset of \(UserModels.standardFile.path) (tide models list), or give a path to a .gguf file"
        case .notInstalled(let id, let path):
            "model '\(id)' is not installed (expected at \(path)): run `tide models pull \(id)`"
        }
    }
}
