import Foundation
import TideFiles

/// The user's own registry entries: `$XDG_CONFIG_HOME/tide/models.json` (by default
/// `~/.config/tide/models.json`), models served elsewhere and presets of other models:
///
/// ```json
/// {"models": [{"name": "cluster-llama", "kind": "remote", "url": "http://gpu-box:8000",
///              "model": "meta-llama/Llama-3.1-8B-Instruct", "api_key_env": "CLUSTER_KEY",
///              "context_length": 8192},
///             {"name": "terse", "kind": "preset", "from": "smollm2-135m-instruct",
///              "system_prompt": "Answer in one sentence.", "parameters": {"temperature": 0.2}}]}
/// ```
public struct UserModels: Sendable, Hashable {
    /// The entries, in the file's order.
    public var entries: [UserModelEntry]
    /// The file they were read from.
    public let file: URL

    /// The standard file's path.
    public static var standardFile: URL {
        let environment = ProcessInfo.processInfo.environment
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config")
        return config.appendingPathComponent("tide/models.json")
    }

    /// The most a registry file may hold.
    static let fileSizeLimit = 1 << 20

    /// The entries of `file`; none when it does not exist.
    public init(file: URL = UserModels.standardFile) throws(UserModelsError) {
        self.file = file
        guard InputFile.kind(of: file.path) != .missing else {
            entries = []
            return
        }
        let data: Data
        do {
            data = Data(try InputFile.contents(of: file.path, what: "model registry", limit: Self.fileSizeLimit))
        } catch {
            throw UserModelsError(file: file.path, detail: error.reason)
        }
        struct Document: Decodable { var models: [UserModelEntry] }
        do {
            entries = try JSONDecoder().decode(Document.self, from: data).models
        } catch let error as DecodingError {
            throw UserModelsError(file: file.path, detail: error.plainDescription)
        } catch {
            throw UserModelsError(file: file.path, detail: "\(error)")
        }
        var seen = Set<String>()
        for entry in entries {
            if let problem = Self.problem(naming: entry.name) { throw UserModelsError(file: file.path, detail: problem) }
            guard seen.insert(entry.name.lowercased()).inserted else {
                throw UserModelsError(file: file.path, detail: "two entries are named '\(entry.name)'")
            }
        }
    }

    /// Why `name` cannot name an entry of the user's, if it cannot.
    public static func problem(naming name: String) -> String? {
        if name.trimmingCharacters(in: .whitespaces).isEmpty { return "a model's name cannot be empty" }
        if ModelRegistry.entry(named: name) != nil { return "'\(name)' is a built-in model's name; choose another" }
        if ModelStore.isPath(name) {
            return "'\(name)' reads as a file path (a / or .gguf); choose a plain name"
        }
        return nil
    }

    /// The entry named `name` (case-insensitively), if any.
    public func entry(named name: String) -> UserModelEntry? {
        entries.first { $0.name.lowercased() == name.lowercased() }
    }

    /// Whether `name` names a model: a path, a built-in model, or an entry of this registry.
    public func knows(_ name: String) -> Bool {
        ModelStore.isPath(name) || ModelRegistry.entry(named: name) != nil || entry(named: name) != nil
    }

    /// The remote entry named `name`, if any.
    public func remote(named name: String) -> RemoteModelEntry? {
        if case .remote(let entry)? = entry(named: name) { entry } else { nil }
    }

    /// The presets that lead from `name` to the model they start from, outermost first: none
    /// when `name` is not a preset. A preset that leads back to itself is an error.
    public func presets(from name: String) throws(UserModelsError) -> [PresetEntry] {
        var chain: [PresetEntry] = []
        var current = name
        while case .preset(let preset)? = entry(named: current) {
            if chain.contains(where: { $0.name.lowercased() == preset.name.lowercased() }) {
                throw UserModelsError(file: file.path, detail: "the presets "
                    + (chain.map(\.name) + [preset.name]).joined(separator: " → ") + " lead back to themselves; change one's \"from\"")
            }
            chain.append(preset)
            current = preset.from
        }
        return chain
    }

    /// The defaults the model `name` brings: a built-in model's, a remote entry's, or a
    /// preset's over those of the model it starts from; none for a file path.
    public func defaults(for name: String) throws(UserModelsError) -> ModelDefaults {
        let chain = try presets(from: name)
        let base = chain.last?.from ?? name
        let own: ModelDefaults = ModelRegistry.entry(named: base)?.defaults ?? remote(named: base)?.defaults ?? ModelDefaults()
        return chain.reversed().reduce(own) { $0.overlaid(by: $1.defaults) }
    }
}

/// One entry of the user's registry.
public enum UserModelEntry: Sendable, Hashable, Decodable {
    /// A model on an OpenAI-compatible server (`"kind": "remote"`).
    case remote(RemoteModelEntry)
    /// Another model with defaults of its own (`"kind": "preset"`).
    case preset(PresetEntry)

    /// The name users type.
    public var name: String {
        switch self {
        case .remote(let entry): entry.name
        case .preset(let entry): entry.name
        }
    }

    enum CodingKeys: String, CodingKey { case kind }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try container.decode(String.self, forKey: .kind)
        switch kind {
        case "remote": self = .remote(try RemoteModelEntry(from: decoder))
        case "preset": self = .preset(try PresetEntry(from: decoder))
        default:
            throw DecodingError.dataCorruptedError(forKey: .kind, in: container,
                                                   debugDescription: "unknown kind '\(kind)'; an entry is \"remote\" or \"preset\"")
        }
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
