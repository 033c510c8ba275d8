import TideCore
import TideModels
import TideRemote

/// A model on an OpenAI-compatible server, as `--remote` or a remote registry entry names it.
public struct RemoteModel: ChatModel, Hashable {
    /// The server.
    public var server: RemoteServer
    /// More servers of the same model, over which replies are spread with ``server``'s.
    public var replicas: [RemoteServer] = []
    /// The model's name on the server.
    public var name: String
    /// The context the server gives the model.
    public var contextSize: Int
    public var defaults: ModelDefaults
    /// How long the server may stay silent before a reply fails.
    public var timeout: Duration

    /// `name` on `server`; `contextSize` defaults to 4096, `timeout` to two minutes.
    public init(server: RemoteServer, name: String, contextSize: Int? = nil, defaults: ModelDefaults = ModelDefaults(),
                timeout: Duration? = nil) {
        self.server = server
        self.name = name
        self.contextSize = contextSize ?? 4096
        self.defaults = defaults
        self.timeout = timeout ?? RemoteBackend.defaultTimeout
    }

    /// The model a remote registry entry describes, with `defaults` (by default the entry's);
    /// the setup's context size and timeout win over the entry's.
    public init(entry: RemoteModelEntry, setup: ModelSetup, defaults: ModelDefaults? = nil) {
        self.init(server: entry.server, name: entry.model, contextSize: setup.contextSize ?? entry.contextLength,
                  defaults: defaults ?? entry.defaults, timeout: setup.remoteTimeout ?? entry.timeout.map { .seconds($0) })
    }

    public var identifier: String { "\(name) on \(server.url)" }

    public func origin(in setup: ModelSetup) -> String {
        (setup.model == name ? "" : "\(setup.model) ") + "on \(server)"
    }

    /// `nil`: the server renders its prompts.
    public func templateName(for setup: ModelSetup) -> String? { nil }

    /// A backend sending each reply to the server.
    /// A backend on the server. A tool format (a preset's, `--tool-format`) is refused: the server
    /// offers the tools and reads the calls itself; so are cache types: the server keeps its cache.
    public func makeBackend(_ setup: ModelSetup) throws -> any ChatBackend {
        if let format = setup.toolFormat ?? defaults.toolFormat {
            throw InvalidParameterError(name: "tool-format", value: format.rawValue,
                                        requirement: "none for \(name) on \(server.url.absoluteString), whose server offers the tools and reads the calls")
        }
        for (option, type) in [("cache-type-k", setup.keyCacheType ?? defaults.keyCacheType),
                               ("cache-type-v", setup.valueCacheType ?? defaults.valueCacheType)] {
            if let type {
                throw InvalidParameterError(name: option, value: type.rawValue,
                                            requirement: "none for \(name) on \(server.url.absoluteString), whose server keeps its own cache")
            }
        }
        return RemoteBackend(url: server.url, model: name, apiKey: server.apiKey, contextSize: contextSize, timeout: timeout,
                             replicas: replicas.map(\.url), api: server.api)
    }

    /// `nil`: the server batches its own clients.
    public func makeBatch(_ setup: ModelSetup, sequences: Int, contextSize: Int?) throws -> (any BackendBatch)? { nil }
}
