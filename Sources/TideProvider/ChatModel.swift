import TideCore
import TideModels

/// A model ready to chat — weights loaded in this process, or a model on a server — and the
/// one place its backends are made.
public protocol ChatModel: Sendable {
    /// The model's name for clients and transcripts: its registry name, its file's name, or its
    /// name on its server.
    var name: String { get }
    /// Tells models apart: a local file's path, or a remote model's server and name.
    var identifier: String { get }
    /// What the model sets up for a conversation unless the user says otherwise — its registry
    /// entry's, or a preset's over those: a system prompt (`nil` for ``ChatModel/tideSystemPrompt``),
    /// parameters and plugins.
    var defaults: ModelDefaults { get }
    /// Where the model comes from, as `/show` says it: the name or file `setup` gives, and the
    /// server it runs on.
    func origin(in setup: ModelSetup) -> String
    /// The chat template `setup` asks for, as users name it (`model` for the file's own); `nil`
    /// when a server renders the prompts.
    func templateName(for setup: ModelSetup) -> String?
    /// A fresh conversation on this model, with the context `setup` asks for.
    func makeBackend(_ setup: ModelSetup) throws -> any ChatBackend
    /// Backends decoding side by side: `sequences` sequences of `contextSize` tokens each (by
    /// default `setup`'s). `nil` when the model cannot batch here (a server batches its own
    /// clients); make single backends then.
    func makeBatch(_ setup: ModelSetup, sequences: Int, contextSize: Int?) throws -> (any BackendBatch)?
}

extension ChatModel {
    /// The system prompt when neither the user nor the model's entry gives one.
    public static var tideSystemPrompt: String { "You are a helpful assistant." }

    /// The system prompt to use when the user gives none (empty: none, as for base models).
    public var defaultSystemPrompt: String { defaults.systemPrompt ?? Self.tideSystemPrompt }

    /// Tide's parameters with the model's defaults applied, for a conversation to start from.
    public var defaultParameters: GenerationParameters { defaults.generationParameters }
}
