import TideCore
import TideModels
import TideRemote

/// A model on an OpenAI-compatible server, as `--remote` or a remote registry entry names it.
public struct RemoteModel: ChatModel, Hashable {
    /// The server.
    public var server: RemoteServer
    /// The model's name on the server.
    public var name: String
    /// The context the server gives the model.
    public var contextSize: Int
    /// The system prompt used when the user gives none; `nil` for Tide's default.
    public var systemPrompt: String?
    /// How long the server may stay silent before a reply fails.
    public var timeout: Duration

    /// `name` on `server`; `contextSize` defaults to 4096, `timeout` to two minutes.
    public init(server: RemoteServer, name: String, contextSize: Int? = nil, systemPrompt: String? = nil,
                timeout: Duration? = nil) {
        self.server = server
        self.name = name
        self.contextSize = contextSize ?? 4096
        self.systemPrompt = systemPrompt
        self.timeout = timeout ?? RemoteBackend.defaultTimeout
    }

    /// The model a remote registry entry describes; the setup's context size and timeout win
    /// over the entry's.
    public init(entry: RemoteModelEntry, setup: ModelSetup) {
        self.init(server: entry.server, name: entry.model, contextSize: setup.contextSize ?? entry.contextLength,
                  systemPrompt: entry.systemPrompt, timeout: setup.remoteTimeout ?? entry.timeout.map { .seconds($0) })
    }

    public var identifier: String { "\(name) on \(server.url)" }

    public var defaultSystemPrompt: String { systemPrompt ?? "You are a helpful assistant." }

    public func origin(in setup: ModelSetup) -> String {
        (setup.model == name ? "" : "\(setup.model) ") + "on \(server)"
    }

    /// `nil`: the server renders its prompts.
    public func templateName(for setup: ModelSetup) -> String? { nil }

    /// A backend sending each reply to the server.
    public func makeBackend(_ setup: ModelSetup) throws -> any ChatBackend {
        RemoteBackend(url: server.url, model: name, apiKey: server.apiKey, contextSize: contextSize, timeout: timeout)
    }

    /// `nil`: the server batches its own clients.
    public func makeBatch(_ setup: ModelSetup, sequences: Int, contextSize: Int?) throws -> (any BackendBatch)? { nil }
}
