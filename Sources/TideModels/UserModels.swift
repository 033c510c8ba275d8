import Foundation
import TideFiles

/// The user's own registry entries: `$XDG_CONFIG_HOME/tide/models.json` (by default
/// `~/.config/tide/models.json`), a list of models served elsewhere:
///
/// ```json
/// {"models": [{"name": "cluster-llama", "kind": "remote", "url": "http://gpu-box:8000",
///              "model": "meta-llama/Llama-3.1-8B-Instruct", "api_key_env": "CLUSTER_KEY",
///              "context_length": 8192}]}
/// ```
public struct UserModels: Sendable, Hashable {
    /// The entries, in the file's order.
    public var entries: [RemoteModelEntry]

    /// The standard file's path.
    public static var standardFile: URL {
        let environment = ProcessInfo.processInfo.environment
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config")
        return config.appendingPathComponent("tide/models.json")
    }

    /// The entries of `file`; none when it does not exist.
    public init(file: URL = UserModels.standardFile) throws(UserModelsError) {
        guard InputFile.kind(of: file.path) != .missing else {
            entries = []
            return
        }
        let data: Data
        do {
            data = Data(try InputFile.contents(of: file.path, what: "model registry", limit: 1 << 20))
        } catch {
            throw UserModelsError(file: file.path, detail: error.reason)
        }
        struct Document: Decodable { var models: [RemoteModelEntry] }
        do {
            entries = try JSONDecoder().decode(Document.self, from: data).models
        } catch let error as DecodingError {
            throw UserModelsError(file: file.path, detail: error.plainDescription)
        } catch {
            throw UserModelsError(file: file.path, detail: "\(error)")
        }
        var seen = Set<String>()
        for entry in entries {
            if ModelRegistry.entry(named: entry.name) != nil {
                throw UserModelsError(file: file.path, detail: "'\(entry.name)' is a built-in model's name; choose another")
            }
            if ModelStore.isPath(entry.name) {
                throw UserModelsError(file: file.path, detail: "'\(entry.name)' reads as a file path (a / or .gguf); "
                                          + "choose a plain name, and put the server's name for the model in \"model\"")
            }
            guard seen.insert(entry.name.lowercased()).inserted else {
                throw UserModelsError(file: file.path, detail: "two entries are named '\(entry.name)'")
            }
        }
    }

    /// The entry named `name` (case-insensitively), if any.
    public func entry(named name: String) -> RemoteModelEntry? {
        entries.first { $0.name.lowercased() == name.lowercased() }
    }
}

/// A user registry file Tide cannot read.
public struct UserModelsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file.
    public let file: String
    /// What is wrong.
    public let detail: String

    public var description: String { "\(file): \(detail)" }
}
