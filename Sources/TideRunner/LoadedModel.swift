import Foundation
import TideCore
import TideLlama
import TideModels
import TideRemote

/// A model ready to chat: weights loaded here, or a model on a server.
public enum LoadedModel: Sendable {
    /// Weights in this process, with their registry entry when the model was named.
    case local(LlamaModel, entry: ModelEntry?)
    /// A model an OpenAI-compatible server runs.
    case remote(RemoteModel)

    /// The system prompt to use when the user gives none (base models have none).
    public var defaultSystemPrompt: String {
        switch self {
        case .local(_, let entry): entry?.defaultSystemPrompt ?? "You are a helpful assistant."
        case .remote(let model): model.systemPrompt ?? "You are a helpful assistant."
        }
    }

    /// Where the model comes from, as `/show` says it: the name or file `setup` gives, and the
    /// server it runs on.
    public func origin(in setup: ModelSetup) -> String {
        switch self {
        case .local: setup.model
        case .remote(let model): (setup.model == model.name ? "" : "\(setup.model) ") + "on \(model.server)"
        }
    }

    /// The chat template `setup` asks for, as users name it (`model` for the file's own); `nil`
    /// for a remote model, whose server renders its prompts.
    public func templateName(for setup: ModelSetup) -> String? {
        guard case .local(_, let entry) = self else { return nil }
        return setup.template ?? entry?.template ?? "model"
    }

    /// A fresh conversation on this model: a llama.cpp context with the template and end strings
    /// of the registry entry, or a remote backend.
    public func makeBackend(_ setup: ModelSetup) throws -> any ChatBackend {
        switch self {
        case .local(let model, let entry):
            try LlamaBackend(model: model, options: setup.contextOptions, template: template(for: setup),
                             endOfGenerationStrings: entry?.endOfGenerationStrings ?? [])
        case .remote(let model): model.makeBackend()
        }
    }

    /// The chat template for a local model: `setup`'s override, else the registry's, else the
    /// file's own.
    public func template(for setup: ModelSetup) throws -> ChatTemplate {
        try ChatTemplate(parsing: templateName(for: setup) ?? "model")
    }
}

/// A model on an OpenAI-compatible server, as `--remote` or a remote registry entry names it.
public struct RemoteModel: Sendable, Hashable {
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

    /// The model a remote registry entry describes; the setup's context size (`--ctx-size`) and
    /// timeout (`--remote-timeout`) win over the entry's.
    public init(entry: RemoteModelEntry, setup: ModelSetup) {
        self.init(server: entry.server, name: entry.model, contextSize: setup.contextSize ?? entry.contextLength,
                  systemPrompt: entry.systemPrompt, timeout: setup.remoteTimeout ?? entry.timeout.map { .seconds($0) })
    }

    /// A backend sending each reply to the server.
    public func makeBackend() -> RemoteBackend {
        RemoteBackend(url: server.url, model: name, apiKey: server.apiKey, contextSize: contextSize, timeout: timeout)
    }
}
