import Synchronization
import TideCore

/// A backend that replies with fixed token texts, without a model: the backend of plugin tests
/// (``PluginTestFile``) and of Tide's own fast tests. It counts one prompt token per character,
/// so context limits are easy to reason about.
/// (`tokenDelay` and `supportsLogits` are set before use and then only read.)
public final class ScriptedBackend: ChatBackend, @unchecked Sendable {
    public let contextSize: Int
    public let endOfGenerationStrings: [String]
    /// Whether logits hooks can run (a remote model's backend says no).
    public var supportsLogits = true
    /// Whether replies can be rewound (a remote model's backend says no). A rewound position
    /// gives the same token again unless it was banned there; a banned token is skipped, and
    /// the script goes on with the next.
    public var supportsRewind = true
    /// The model's name in ``modelDescription``.
    public let modelName: String
    public var modelDescription: ModelDescription { ModelDescription(name: modelName, backend: "scripted", contextSize: contextSize) }
    private let reply: @Sendable ([ChatMessage]) -> [ScriptedToken]
    /// A pause before each token, to make a reply slow enough to interrupt.
    public var tokenDelay: Duration = .zero
    /// What every reply fails with when it starts (a ``ScriptedFailure``); `nil` for none.
    public var startFailure: String?
    /// How its "model" writes tool calls; `nil`: it cannot be offered tools.
    public var toolCallReader: (any ToolCallReader)?
    /// The tags the scripted model reasons between; `nil` for a model that does not think.
    public var reasoningMarkers: ReasoningMarkers?
    /// The tokenizer its hooks see; `nil` for none.
    public var vocabulary: (any Vocabulary)?
    private let log = Mutex<[String]>([])
    private let prompts = Mutex<[(messages: [ChatMessage], parameters: GenerationParameters)]>([])

    /// A backend whose every reply is `tokens` (as raw bytes), then end of generation.
    public init(tokens: [[UInt8]], contextSize: Int = 4096, endOfGenerationStrings: [String] = [], modelName: String = "scripted") {
        self.reply = { _ in ScriptedToken.numbered(tokens) }
        self.contextSize = contextSize
        self.endOfGenerationStrings = endOfGenerationStrings
        self.modelName = modelName
    }

    /// A backend whose every reply is the token texts `texts`, then end of generation.
    public convenience init(_ texts: [String], contextSize: Int = 4096, endOfGenerationStrings: [String] = []) {
        self.init(tokens: texts.map { Array($0.utf8) }, contextSize: contextSize, endOfGenerationStrings: endOfGenerationStrings)
    }

    /// A backend replying to each prompt with the token texts `reply` gives for its messages.
    public init(contextSize: Int = 4096, endOfGenerationStrings: [String] = [], modelName: String = "scripted",
                reply: @escaping @Sendable ([ChatMessage]) -> [String]) {
        self.reply = { messages in ScriptedToken.numbered(reply(messages).map { Array($0.utf8) }) }
        self.contextSize = contextSize
        self.endOfGenerationStrings = endOfGenerationStrings
        self.modelName = modelName
    }

    /// A backend replying to each prompt with the tokens `reply` gives for its messages, each
    /// with its own id (a real model's, say).
    public init(modelName: String, replying reply: @escaping @Sendable ([ChatMessage]) -> [ScriptedToken]) {
        self.reply = reply
        self.contextSize = 4096
        self.endOfGenerationStrings = []
        self.modelName = modelName
    }

    /// What happened, in order: `prompt`, `sample N`, `bias T D`, `ban T`, `close`.
    public var events: [String] { log.withLock { $0 } }
    /// The message lists the backend was asked to reply to.
    public var receivedPrompts: [[ChatMessage]] { prompts.withLock { $0.map(\.messages) } }
    /// The parameters of each of those replies.
    public var receivedParameters: [GenerationParameters] { prompts.withLock { $0.map(\.parameters) } }

    func record(_ event: String) { log.withLock { $0.append(event) } }

    public func promptTokenCount(for messages: [ChatMessage], rawPrompt: Bool) async throws -> Int {
        messages.reduce(0) { $0 + $1.content.count }
    }

    public func startReply(to messages: [ChatMessage], parameters: GenerationParameters) async throws
        -> sending any ReplyDecoder
    {
        if let startFailure { throw ScriptedFailure(description: startFailure) }
        let promptTokens = try await promptTokenCount(for: messages, rawPrompt: parameters.rawPrompt)
        record("prompt")
        prompts.withLock { $0.append((messages, parameters)) }
        return Decoder(backend: self, tokens: reply(messages), promptTokens: promptTokens)
    }

    final class Decoder: ReplyDecoder {
        let backend: ScriptedBackend
        /// The reply's tokens with their ids.
        var tokens: [ScriptedToken]
        /// The position of the next token.
        var index = 0
        let promptTokenCount: Int
        var reusedPromptTokenCount: Int { 0 }

        init(backend: ScriptedBackend, tokens: [ScriptedToken], promptTokens: Int) {
            self.backend = backend
            self.tokens = tokens
            self.promptTokenCount = promptTokens
        }

        func nextToken(adjustingLogits: ((any LogitsView) throws -> Void)?) async throws -> DecodedToken {
            let logits = RecordingLogits(backend: backend, upcoming: tokens[index...].map(\.id))
            if let adjustingLogits { try adjustingLogits(logits) }
            if backend.tokenDelay > .zero { try? await Task.sleep(for: backend.tokenDelay) } else { await Task.yield() }
            while index < tokens.count, logits.banned.contains(tokens[index].id) { tokens.remove(at: index) }
            guard index < tokens.count else { return .endOfGeneration }
            backend.record("sample \(index)")
            index += 1
            return .token(id: tokens[index - 1].id, bytes: tokens[index - 1].bytes)
        }

        func keepRewindPoints() throws {
            guard backend.supportsRewind else { throw RewindUnsupported() }
        }

        func rewind(to position: Int) throws {
            guard backend.supportsRewind, position <= index else { throw RewindUnsupported() }
            backend.record("rewind \(position)")
            index = position
        }

        func close() { backend.record("close") }
    }

    /// A logits view that records what hooks do to it. With a vocabulary (the plugin harness's),
    /// its best candidates are the reply's next tokens in order, then the vocabulary's others.
    final class RecordingLogits: LogitsView {
        let backend: ScriptedBackend
        /// The tokens the reply has still to give, in order.
        let upcoming: [Int32]
        /// The tokens banned in this step.
        var banned: Set<Int32> = []
        init(backend: ScriptedBackend, upcoming: [Int32]) {
            self.backend = backend
            self.upcoming = upcoming
        }
        /// The backend's vocabulary's size, else 100.
        var vocabularySize: Int { backend.vocabulary?.vocabularySize ?? 100 }
        /// The first `k` candidates, best first: without a vocabulary, ids 0, 1, … named `tN`.
        func top(_ k: Int) -> [TokenCandidate] {
            guard let vocabulary = backend.vocabulary else {
                return (0..<max(0, k)).map { TokenCandidate(id: Int32($0), text: "t\($0)", logit: Float(-$0)) }
            }
            var seen: Set<Int32> = []
            let order = (upcoming + (0..<Int32(vocabularySize))).filter { seen.insert($0).inserted }
            return order.prefix(max(0, k)).enumerated().map { TokenCandidate(id: $1, text: vocabulary.tokenText($1), logit: Float(-$0)) }
        }
        func bias(_ token: Int32, by delta: Float) { backend.record("bias \(token) \(delta)") }
        func ban(_ token: Int32) {
            banned.insert(token)
            backend.record("ban \(token)")
        }
    }
}

/// The failure of a scripted backend told to fail (``ScriptedBackend/startFailure``).
public struct ScriptedFailure: Error, Sendable, CustomStringConvertible {
    public let description: String
}

/// One token of a scripted reply: its id and its bytes (part of a UTF-8 character, for some).
public struct ScriptedToken: Sendable, Hashable {
    /// Its id.
    public var id: Int32
    /// Its bytes.
    public var bytes: [UInt8]

    /// A token `id` of `bytes`.
    public init(id: Int32, bytes: [UInt8]) {
        self.id = id
        self.bytes = bytes
    }

    /// `tokens` numbered by their places, from 1.
    static func numbered(_ tokens: [[UInt8]]) -> [ScriptedToken] {
        tokens.enumerated().map { ScriptedToken(id: Int32($0.offset + 1), bytes: $0.element) }
    }
}
