/// A language model that can continue a conversation token by token.
///
/// TideCore drives the reply loop; a backend only renders, evaluates and samples. The llama.cpp
/// backend (TideLlama) and the remote OpenAI-compatible backend implement it; tests may use a
/// scripted one.
public protocol ChatBackend: AnyObject, Sendable {
    /// The most tokens a prompt and its reply may take together.
    var contextSize: Int { get }
    /// What the model is, for plugins (`tide.model`) and status displays.
    var modelDescription: ModelDescription { get }
    /// Strings that end a reply like an end-of-generation token (for example Phi's `<|end|>`).
    var endOfGenerationStrings: [String] { get }
    /// Whether ``ReplyDecoder/nextToken(adjustingLogits:)`` can offer a ``LogitsView``.
    var supportsLogits: Bool { get }
    /// Whether its decoders can take back tokens (``ReplyDecoder/rewind(to:)``).
    var supportsRewind: Bool { get }
    /// Why it cannot hold a conversation longer than its context by shifting its cache
    /// (``ContextOverflowPolicy/shift``), or `nil` when it can.
    var contextShiftUnavailable: String? { get }
    /// Where replies should run, for backends whose decoding blocks a thread; `nil` for the
    /// default (the cooperative pool).
    var taskExecutor: (any TaskExecutor)? { get }
    /// The model's tokenizer, when the backend has one locally.
    var vocabulary: (any Vocabulary)? { get }
    /// Tokens its cache holds now (0 for a backend that keeps none here).
    var cachedTokenCount: Int { get }
    /// How its model is offered tools and writes its calls; `nil` when it cannot call tools, or
    /// when the backend offers them itself (``offersToolsItself``).
    var toolCallReader: (any ToolCallReader)? { get }
    /// The tags its model writes its reasoning between, when it thinks before answering; `nil`
    /// for a model that does not (or a backend that gives the reasoning apart itself).
    var reasoningMarkers: ReasoningMarkers? { get }
    /// Whether the backend offers the tools to its model itself and gives the calls as data
    /// (``ReplyDecoder/toolCalls()``), as a server's API does, rather than through a ``toolCallReader``.
    var offersToolsItself: Bool { get }
    /// Makes its cache hold what `source`'s holds, so that a prompt they share is evaluated once
    /// (several choices of one request). Where it cannot (`source` is another batch's, or the
    /// model's cache cannot be copied), it does nothing, and its next prompt is evaluated as usual.
    /// Call it while this backend makes no reply; `source` may be replying (what its cache holds
    /// then is copied).
    func copyCache(of source: any ChatBackend) async
    /// How many tokens `messages` take once rendered as a prompt: through the chat template
    /// (generation prompt included), or as plain text when `rawPrompt` (see
    /// ``GenerationParameters/rawPrompt``).
    func promptTokenCount(for messages: [ChatMessage], rawPrompt: Bool) async throws -> Int
    /// What identifies the prompt `messages` make as the model reads it, for a ``ReplyCache``'s
    /// key: a local model's prompt tokens; by default, every field of the messages
    /// (`Array.fingerprint`).
    func promptFingerprint(for messages: [ChatMessage], rawPrompt: Bool) async throws -> [UInt8]
    /// Keeps the model's state after long prompts in `store`, and loads a prompt's start from
    /// there rather than evaluating it (``PromptStateStore``); a backend that keeps no such state
    /// (a server's) does nothing.
    func keepPromptStates(in store: any PromptStateStore)
    /// Renders and evaluates the prompt, then returns a decoder for the reply.
    ///
    /// Throws ``ContextOverflowError`` when the prompt does not fit the context.
    func startReply(to messages: [ChatMessage], parameters: GenerationParameters) async throws
        -> sending any ReplyDecoder
    /// Why ``startReply(to:parameters:forcing:)`` cannot check a recorded reply by teacher
    /// forcing under `tolerance` (``GenerationParameters/tolerance``), or `nil` when it can.
    func teacherForcingUnavailable(tolerance: Double) -> String?
    /// Like ``startReply(to:parameters:)``, for a reply expected to be `recorded`: the decoder
    /// feeds the model the recorded tokens in batches and gives each as long as the sampler and
    /// the hooks would have chosen it, then generates (see ``TeacherForcing``). Its
    /// ``ReplyDecoder/teacherForcing`` says how far the recording held. Backends that cannot
    /// (``teacherForcingUnavailable(tolerance:)`` not `nil`) start an ordinary reply.
    func startReply(to messages: [ChatMessage], parameters: GenerationParameters, forcing recorded: String) async throws
        -> sending any ReplyDecoder
}

extension ChatBackend {
    public var taskExecutor: (any TaskExecutor)? { nil }
    public var vocabulary: (any Vocabulary)? { nil }
    public var cachedTokenCount: Int { 0 }
    public func copyCache(of source: any ChatBackend) async {}
    public func keepPromptStates(in store: any PromptStateStore) {}
    public var toolCallReader: (any ToolCallReader)? { nil }
    public var reasoningMarkers: ReasoningMarkers? { nil }
    public var offersToolsItself: Bool { false }
    public var supportsRewind: Bool { false }
    public var contextShiftUnavailable: String? { "the model generates on its server, whose cache Tide does not hold" }
    public func promptFingerprint(for messages: [ChatMessage], rawPrompt: Bool) async throws -> [UInt8] {
        messages.fingerprint + [rawPrompt ? 1 : 0]
    }
    public func teacherForcingUnavailable(tolerance: Double) -> String? { "the model samples on its server" }

    public func startReply(to messages: [ChatMessage], parameters: GenerationParameters, forcing recorded: String) async throws
        -> sending any ReplyDecoder
    {
        try await startReply(to: messages, parameters: parameters)
    }

    /// Refuses hooks that need what this backend cannot give: a logits hook, or one that takes
    /// back text, on a model that samples on its server.
    public func checkSupport(of hooks: [any ChatHook]) throws(UnsupportedHookError) {
        for hook in hooks {
            if !supportsLogits, hook.points.contains(.logits) {
                throw UnsupportedHookError(hook: hook.name, model: modelDescription.name, needs: .logits)
            }
            if !supportsRewind, hook.points.contains(.stop), ((try? hook.rewindWindow) ?? 0) > 0 {
                throw UnsupportedHookError(hook: hook.name, model: modelDescription.name, needs: .rewind)
            }
        }
    }
}

/// Produces one reply's tokens. Used by a single task, then closed.
public protocol ReplyDecoder: AnyObject {
    /// Tokens in the rendered prompt.
    var promptTokenCount: Int { get }
    /// Prompt tokens reused from the backend's cache rather than evaluated again.
    var reusedPromptTokenCount: Int { get }
    /// Samples the next token. `adjustingLogits`, when given, sees the scores first;
    /// an error it throws ends the step and is rethrown.
    func nextToken(adjustingLogits: ((any LogitsView) throws -> Void)?) async throws -> DecodedToken
    /// Ends the reply, leaving the backend ready for the next turn. Called exactly once.
    func close()
    /// From now on, keeps what ``rewind(to:)`` needs at every position (the scores and the
    /// sampler's state). Called before the first token, when a hook may rewind.
    func keepRewindPoints() throws
    /// Takes back every token from reply position `position` on (the first token is position 0):
    /// they leave the cache, the sampler's state goes back, and the next ``nextToken(adjustingLogits:)``
    /// samples position `position` again from the scores it had.
    func rewind(to position: Int) throws
    /// Forgets what rewinding needs for the positions before `position`, which no rewind can reach.
    func forgetRewindPoints(before position: Int) throws
    /// How far the recorded reply held, for a decoder started with one
    /// (``ChatBackend/startReply(to:parameters:forcing:)``); `nil` otherwise.
    var teacherForcing: TeacherForcing? { get }
    /// How the tokens it drafted fared; `nil` when it drafted none.
    var drafting: DraftStatistics? { get }
    /// How the reply's format was steered to finish within `max-tokens`; `nil` when it was not.
    var steering: BudgetSteering? { get }
    /// The log-probability of the token the last ``nextToken(adjustingLogits:)`` gave, with the
    /// ``GenerationParameters/logprobs`` likeliest at its position; `nil` when the reply did not
    /// ask for them, or the step gave no token.
    var lastLogprob: TokenLogprob? { get }
    /// Reads the prompt and scores its tokens, each given those before it, with `top` of the
    /// likeliest at each position; before the first ``nextToken(adjustingLogits:)``.
    func scorePrompt(top: Int) async throws -> PromptLogprobs
    /// The tool calls the reply ended with, for a backend that gives them as data
    /// (``ChatBackend/offersToolsItself``); read after the last token. A call that cannot be read
    /// is a ``ToolFailure`` that says why.
    func toolCalls() throws(ToolFailure) -> [ToolCall]
}

extension ReplyDecoder {
    public func keepRewindPoints() throws { throw RewindUnsupported() }
    public func rewind(to position: Int) throws { throw RewindUnsupported() }
    public func forgetRewindPoints(before position: Int) throws {}
    public var teacherForcing: TeacherForcing? { nil }
    public var drafting: DraftStatistics? { nil }
    public var steering: BudgetSteering? { nil }
    public var lastLogprob: TokenLogprob? { nil }
    public func scorePrompt(top: Int) async throws -> PromptLogprobs { throw LogprobsUnsupported() }
    public func toolCalls() throws(ToolFailure) -> [ToolCall] { [] }
}

/// A decoder that cannot take back tokens was asked to.
public struct RewindUnsupported: Error, Sendable, Hashable, CustomStringConvertible {
    public init() {}
    public var description: String { "this model's backend cannot take back tokens" }
}

/// A reply asked for log-probabilities of a backend that cannot give them.
public struct LogprobsUnsupported: Error, Sendable, Hashable, CustomStringConvertible {
    public init() {}
    public var description: String {
        "this model's backend gives Tide no scores to read log-probabilities from (a remote model samples on its server): "
            + "leave out logprobs, or use a local model"
    }
}

/// One step of a reply.
public enum DecodedToken: Sendable, Hashable, Codable {
    /// A token and the bytes of its text (which may hold part of a UTF-8 character).
    case token(id: Int32?, bytes: [UInt8])
    /// The model ended its reply.
    case endOfGeneration
    /// The context window is full.
    case contextFull
    /// Hooks banned every token of the vocabulary: nothing can be sampled.
    case everyTokenBanned
    /// The reply's format allows no token that the hooks left: nothing can be sampled.
    case formatBlocked
}

/// A prompt that does not fit in the context window.
public struct ContextOverflowError: RemediableError, Sendable, Hashable {
    /// Tokens the prompt needs (including room for at least one reply token).
    public let promptTokens: Int
    /// Tokens the context holds.
    public let contextSize: Int

    /// Creates the error.
    public init(promptTokens: Int, contextSize: Int) {
        self.promptTokens = promptTokens
        self.contextSize = contextSize
    }

    public var description: String {
        "the conversation needs \(promptTokens) tokens but the context holds \(contextSize): "
            + "raise the context size, shorten the conversation, or let Tide drop the oldest turns"
    }

    public var remedies: [Remedy] { [.contextSize, .dropOldestTurns] }
}

/// What a session does when the conversation outgrows the context window.
public enum ContextOverflowPolicy: String, Sendable, Hashable, CaseIterable {
    /// Refuse the turn with a ``ContextOverflowError``; the history is unchanged.
    case fail
    /// Drop the oldest user/assistant exchanges (never the system prompt or the new message)
    /// until the prompt and a quarter of the context (or `maxTokens`, if smaller) fit.
    case dropOldest = "drop-oldest"
    /// Keep the whole conversation and let the backend hold its end: the system prompt's tokens,
    /// then the latest ones, the oldest after the system prompt dropped from the cache and the
    /// rest shifted into their place, with no re-evaluation — between turns, and within a reply
    /// that reaches the context's end (llama.cpp's context shift). A local model's, where its
    /// cache can shift (``ChatBackend/supportsContextShift``).
    case shift
}

/// `--context-overflow shift` asked of a backend that cannot shift its context.
public struct ContextShiftUnsupported: Error, Sendable, Hashable, CustomStringConvertible {
    /// The model asked.
    public let model: String
    /// Why it cannot.
    public let reason: String

    /// The error for `model`, which cannot shift because of `reason`.
    public init(model: String, reason: String) {
        self.model = model
        self.reason = reason
    }

    public var description: String {
        "\(model) cannot shift its context (\(reason)): use --context-overflow drop-oldest, or a larger context"
    }
}

/// A hook that needs what the model's backend cannot give: a logits hook, or one that takes back
/// text, on a model that samples elsewhere (a remote server).
public struct UnsupportedHookError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What a hook may need of a backend.
    public enum Need: Sendable, Hashable {
        /// The scores before sampling (`on_logits`).
        case logits
        /// Taking back tokens (a rewind window).
        case rewind
    }

    /// The hook (plugin) that cannot run.
    public let hook: String
    /// The model it cannot run with.
    public let model: String
    /// What it needs.
    public let needs: Need

    /// The error for `hook` on `model`.
    public init(hook: String, model: String, needs: Need) {
        self.hook = hook
        self.model = model
        self.needs = needs
    }

    public var description: String {
        switch needs {
        case .logits:
            "plugin \(hook) defines on_logits, which needs the model's scores, but \(model) samples on its server; "
                + "unload the plugin or use a local model"
        case .rewind:
            "plugin \(hook) takes back text (it declares a rewind window), which needs the model's cache, but \(model) "
                + "generates on its server; unload the plugin or use a local model"
        }
    }
}
