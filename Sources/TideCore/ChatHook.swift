/// Extends a reply at the seven points of the pipeline. Lua plugins implement it; so can Swift code.
/// Each method is named after the Lua hook it serves: `on_prompt` is ``onPrompt(_:)``,
/// `on_logits` ``onLogits(_:reply:)``, `should_stop` ``shouldStop(_:)``, `on_token`
/// ``onToken(_:reply:)``, `on_reply` ``onReply(_:)``, and the policy hooks on tool calls,
/// `on_tool_call` ``onToolCall(_:)`` and `on_tool_result` ``onToolResult(_:review:)``.
///
/// Every method has a default that does nothing, so a hook implements only what it needs and
/// declares it in ``points`` (the engine calls nothing else, and skips the logits view entirely
/// when no hook asks for it). Calls for one reply come from a single task, in pipeline order:
///
/// 1. ``onPrompt(_:)`` once, before the prompt is rendered;
/// 2. per token: ``onLogits(_:reply:)`` before sampling, ``shouldStop(_:)`` after the token's text
///    is known (it may end the reply, or take back its end: a ``Rewind``), ``onToken(_:reply:)``
///    on the text about to be shown;
/// 3. ``onReply(_:)`` once, after the last token.
///
/// A thrown error is reported once as a ``HookFailure``; the session then disables the hook
/// (or ends the reply, under ``HookErrorPolicy/failReply``).
///
/// ```swift
/// final class Shout: ChatHook {
///     let name = "shout"
///     let points: Set<HookPoint> = [.token]
///     func onToken(_ token: TokenInfo, reply: ReplyProgress) throws -> TokenDecision {
///         .replace(token.text.uppercased())
///     }
/// }
/// ```
public protocol ChatHook: AnyObject, Sendable {
    /// The name that stop reasons and error messages show.
    var name: String { get }
    /// How the hook was set up, as a plugin spec that loads it again (`stop-after-sentences
    /// sentences=2`); by default its name. The conversation log keeps it with each reply.
    var specification: String { get }
    /// The pipeline points this hook implements.
    var points: Set<HookPoint> { get }
    /// The most bytes at the end of the reply text that ``shouldStop(_:)`` may take back with a
    /// ``Rewind``; 0 for a hook that never rewinds. Read when each reply starts: the engine holds
    /// back twice the largest window of the session's hooks from per-token hooks and the screen.
    var rewindWindow: Int { get throws }
    /// Sees and may edit the messages and parameters of this turn, or answer in the model's place.
    func onPrompt(_ prompt: inout PromptContext) throws -> PromptDecision
    /// Sees the most likely next tokens and may bias or ban tokens before sampling. `reply` is
    /// the text generated so far, before any filter.
    func onLogits(_ logits: any LogitsView, reply: ReplyProgress) throws
    /// Decides, after each token, whether the reply goes on, ends, or takes back its end.
    func shouldStop(_ reply: ReplyProgress) throws -> StopDecision
    /// Passes, replaces or drops the text about to be shown, and may ask to stop after it.
    func onToken(_ token: TokenInfo, reply: ReplyProgress) throws -> TokenDecision
    /// Sees the finished reply and may change the text stored in the history.
    func onReply(_ reply: inout FinishedReply) throws
    /// Called when the hook joins a session, with the session's backend.
    func attach(to backend: any ChatBackend)
    /// The instructions all the hook's calls so far have spent, for traces and costs (a Lua
    /// plugin counts them as its instruction budget does); `nil` for a hook that does not count
    /// them, or not now.
    var instructionsSpent: Int? { get }
    /// Told before each reply whether its calls should count their instructions exactly (a
    /// trace, or costs that show them): counting may make the hook slower while it is on.
    func countInstructions(_ exactly: Bool)
    /// Sees a tool call before it runs, whichever plugin or server provides the tool, and
    /// decides: run it, with its arguments rewritten or not, refuse it, or answer in its place.
    func onToolCall(_ review: ToolCallReview) throws -> ToolCallDecision
    /// Sees a call's result before the model does; returns the text the model reads instead,
    /// or `nil` to leave it.
    func onToolResult(_ result: ToolResult, review: ToolCallReview) throws -> String?
}

extension ChatHook {
    public var specification: String { name }
    public func onPrompt(_ prompt: inout PromptContext) throws -> PromptDecision { .proceed }
    public func onLogits(_ logits: any LogitsView, reply: ReplyProgress) throws {}
    public var rewindWindow: Int { 0 }
    public func shouldStop(_ reply: ReplyProgress) throws -> StopDecision { .proceed }
    public func onToken(_ token: TokenInfo, reply: ReplyProgress) throws -> TokenDecision { .pass }
    public func onReply(_ reply: inout FinishedReply) throws {}
    public func attach(to backend: any ChatBackend) {}
    public var instructionsSpent: Int? { nil }
    public func countInstructions(_ exactly: Bool) {}
    public func onToolCall(_ review: ToolCallReview) throws -> ToolCallDecision { .run }
    public func onToolResult(_ result: ToolResult, review: ToolCallReview) throws -> String? { nil }
}

/// Why a tool could not give a result: the text the model is told.
public struct ToolFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public let description: String

    /// A failure saying `description`.
    public init(_ description: String) { self.description = description }
}

/// The seven places where a hook can act.
public enum HookPoint: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Before the prompt is rendered (`on_prompt`).
    case prompt = "on_prompt"
    /// Before each token is sampled (`on_logits`).
    case logits = "on_logits"
    /// After each token, to decide whether to stop (`should_stop`).
    case stop = "should_stop"
    /// On the text about to be shown (`on_token`).
    case token = "on_token"
    /// After the reply (`on_reply`).
    case reply = "on_reply"
    /// Before each tool call runs, to let it run, refuse it, rewrite it or answer it (`on_tool_call`).
    case toolCall = "on_tool_call"
    /// After each tool call, before the model reads its result (`on_tool_result`).
    case toolResult = "on_tool_result"

    public var description: String { rawValue }
}

/// The messages and parameters of one turn, as pre-prompt hooks see them.
///
/// Edits apply to this turn's prompt only: the session's history keeps what the user said.
public struct PromptContext: Sendable, Hashable {
    /// The whole conversation, the new user message last.
    public var messages: [ChatMessage]
    /// The parameters this turn will be generated with.
    public var parameters: GenerationParameters

    /// Creates a prompt context.
    public init(messages: [ChatMessage], parameters: GenerationParameters) {
        self.messages = messages
        self.parameters = parameters
    }

    /// Replaces the system prompt, or inserts one at the start if there is none.
    public mutating func setSystemPrompt(_ text: String) {
        if let index = messages.firstIndex(where: { $0.role == .system }) {
            messages[index].content = text
        } else {
            messages.insert(ChatMessage(.system, text), at: 0)
        }
    }
}

/// What a pre-prompt hook decided.
public enum PromptDecision: Sendable, Hashable {
    /// Go on to the next hook, then the model.
    case proceed
    /// Answer with this text; the model is not run and later hooks are skipped.
    case answer(String)
}

/// What a stop-condition hook decided after a token.
public enum StopDecision: Sendable, Hashable {
    /// Go on.
    case proceed
    /// End the reply after this token, for this reason.
    case stop(reason: String)
    /// Take back the end of the reply and generate it again.
    case rewind(Rewind)
}

/// A request to take back the end of a reply: the text from ``offset`` on is discarded (from
/// the start of the token that holds that byte), and the model picks again at that position —
/// by default with that token banned there, so that it continues differently.
public struct Rewind: Sendable, Hashable {
    /// Where the text taken back starts: a byte offset (UTF-8, from 0) into
    /// ``ReplyProgress/text``. It must lie within the hook's ``ChatHook/rewindWindow`` of the end.
    public var offset: Int
    /// Whether to ban, at the rewound position, the token that began the text taken back.
    public var banFirstToken: Bool
    /// More tokens to ban at the rewound position.
    public var bannedTokens: [Int32]

    /// A rewind to `offset`, banning the first token taken back unless `banFirstToken` is false.
    public init(offset: Int, banFirstToken: Bool = true, bannedTokens: [Int32] = []) {
        self.offset = offset
        self.banFirstToken = banFirstToken
        self.bannedTokens = bannedTokens
    }
}

/// The reply so far, as stop-condition and per-token hooks see it.
public struct ReplyProgress: Sendable, Hashable {
    /// All text generated so far (stop strings excluded), before per-token filtering.
    public var text: String
    /// Tokens generated so far.
    public var tokenCount: Int
    /// Time since the reply was requested.
    public var elapsed: Duration
    /// The reasoning so far of a thinking model (its `<think>` block, tags left out): ``text``
    /// is only the answer.
    public var reasoning: String

    /// Creates a progress snapshot.
    public init(text: String, tokenCount: Int, elapsed: Duration, reasoning: String = "") {
        self.text = text
        self.tokenCount = tokenCount
        self.elapsed = elapsed
        self.reasoning = reasoning
    }
}

/// The text about to be shown, as per-token hooks see it.
///
/// Usually one token's text. Text held back while it might start a stop string is released
/// with a later token, and so can span several tokens. After the last token, hooks get one more
/// call with ``isFinal`` set (and usually empty text), so a filter that holds text back can
/// release it.
public struct TokenInfo: Sendable, Hashable {
    /// The id of the last token that contributed to ``text``, if any (remote backends have none).
    public var id: Int32?
    /// The text, valid UTF-8; empty only in the final call.
    public var text: String
    /// The zero-based index of that token in the reply.
    public var index: Int
    /// True for the call after the last token.
    public var isFinal: Bool

    /// Creates a token description.
    public init(id: Int32?, text: String, index: Int, isFinal: Bool = false) {
        self.id = id
        self.text = text
        self.index = index
        self.isFinal = isFinal
    }
}

/// What a per-token hook decided about a piece of text.
public struct TokenDecision: Sendable, Hashable {
    /// What to show instead of the text: `nil` keeps it, `""` drops it.
    public var replacement: String?
    /// A reason to end the reply after this text, if the hook wants to stop.
    public var stopReason: String?

    /// Creates a decision.
    public init(replacement: String? = nil, stopReason: String? = nil) {
        self.replacement = replacement
        self.stopReason = stopReason
    }

    /// Show the text unchanged.
    public static let pass = TokenDecision()
    /// Show nothing for this text.
    public static let drop = TokenDecision(replacement: "")
    /// Show `text` instead.
    public static func replace(_ text: String) -> TokenDecision { TokenDecision(replacement: text) }
}

/// A finished reply, as post-reply hooks see it.
public struct FinishedReply: Sendable, Hashable {
    /// What the model produced, before per-token hooks.
    public let rawText: String
    /// What was shown, after per-token hooks.
    public let shownText: String
    /// What the history will store; starts as ``shownText``.
    public var storedText: String
    /// Why the reply ended.
    public let stopReason: StopReason
    /// Token counts and timings.
    public let statistics: GenerationStatistics
    /// The reasoning of a thinking model, tags left out (empty for none); the texts above are
    /// the answer.
    public var reasoning = ""
}

/// A hook that threw: reported once, with where it happened.
public struct HookFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The hook's name.
    public let hookName: String
    /// Where in the pipeline it failed.
    public let point: HookPoint
    /// The error's message (for Lua plugins, with a traceback).
    public let message: String

    /// Creates a failure report.
    public init(hookName: String, point: HookPoint, message: String) {
        self.hookName = hookName
        self.point = point
        self.message = message
    }

    public var description: String { "plugin \(hookName) failed in \(point): \(message)" }
}

/// What happens when a hook throws.
public enum HookErrorPolicy: Sendable, Hashable {
    /// Report the failure once, disable the hook for the rest of the session, keep generating.
    case disableHook
    /// End the reply with the failure as the stream's error (`--strict`).
    case failReply
}
