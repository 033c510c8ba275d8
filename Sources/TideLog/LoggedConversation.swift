import Foundation
import TideCore

/// A conversation as `tide logs` lists it: one line's worth.
public struct ConversationSummary: Sendable, Hashable, Codable {
    public var id: Int64
    /// When it started: ISO 8601, UTC.
    public var started: String
    public var model: String
    public var source: LogSource
    /// A script's path, an endpoint; `nil` when there is nothing more to say.
    public var origin: String?
    /// The first user message.
    public var firstMessage: String
    /// How many generated replies it holds.
    public var replies: Int

    enum CodingKeys: String, CodingKey {
        case id, started, model, source, origin, replies
        case firstMessage = "first_message"
    }

    /// When it started, in local time, to the minute (`2026-11-23 21:05`).
    public var localStart: String {
        guard let date = try? ConversationLog.timestampStyle.parse(started) else { return started }
        return Self.minuteStyle.format(date)
    }

    private static let minuteStyle = Date.VerbatimFormatStyle(
        format: "\(year: .defaultDigits)-\(month: .twoDigits)-\(day: .twoDigits) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits)",
        timeZone: .current, calendar: Calendar(identifier: .gregorian))
}

/// A logged conversation in full.
public struct LoggedConversation: Sendable, Hashable, Encodable {
    public var summary: ConversationSummary
    /// Its messages in order.
    public var messages: [LoggedMessage]
}

/// One message of a logged conversation.
public struct LoggedMessage: Sendable, Hashable, Encodable {
    public var role: ChatRole
    public var content: String
    /// When it was logged: ISO 8601, UTC.
    public var created: String
    /// A thinking model's reasoning, apart from ``content``; `nil` for none.
    public var reasoning: String?
    /// For a generated reply, how it was made; `nil` for the other messages.
    public var reply: LoggedReply?
}

/// How a logged reply was made and how it went.
public struct LoggedReply: Sendable, Hashable, Encodable {
    /// The parameters, as `--json` shows them.
    public var parameters: ParametersJSON
    /// The plugins that ran, as specs that load them again.
    public var plugins: [String]
    /// How it ended (`eos`, `max-tokens`, `plugin:…`); `nil` for a reply that failed.
    public var stopReason: String?
    public var promptTokens: Int?
    public var reusedPromptTokens: Int?
    public var generatedTokens: Int?
    /// Seconds to the first token.
    public var timeToFirstToken: Double?
    public var tokensPerSecond: Double?
    /// Seconds spent in plugins.
    public var hookSeconds: Double?
    public var rewinds: Int
    /// Whether it was cut short (cancelled, or failed part-way).
    public var interrupted: Bool
    /// Of its generated tokens, those spent reasoning; `nil` for none.
    public var reasoningTokens: Int?
    /// Its tool calls, in order: the rounds given before it, its own, and the calls it ended with.
    public var toolCalls: [LoggedToolCall] = []

    enum CodingKeys: String, CodingKey {
        case parameters, plugins, rewinds, interrupted, toolCalls = "tool_calls"
        case stopReason = "stop_reason", promptTokens = "prompt_tokens", reusedPromptTokens = "reused_prompt_tokens"
        case generatedTokens = "generated_tokens", timeToFirstToken = "time_to_first_token", tokensPerSecond = "tokens_per_second"
        case hookSeconds = "hook_seconds", reasoningTokens = "reasoning_tokens"
    }
}

/// A tool call of a logged reply and its result.
public struct LoggedToolCall: Sendable, Hashable, Encodable {
    /// The round of calls it was made in (0 is the turn's first), and what was said before the round's calls.
    public var round: Int
    public var roundText: String
    /// Whether the round was given before the reply (a client's, a script's) rather than made by it.
    public var given: Bool
    /// The call, as the model wrote it where it was written here.
    public var call: ToolCall
    /// What it gave; `nil` for a call left to the caller (a server's client).
    public var result: String?
    /// Whether the tool failed.
    public var failed: Bool
    /// How long it ran, in seconds, where it ran here.
    public var seconds: Double?

    enum CodingKeys: String, CodingKey {
        case round, given, call, result, failed, seconds
        case roundText = "round_text"
    }
}

/// A message that matched a search.
public struct SearchHit: Sendable, Hashable {
    /// The conversation it belongs to.
    public var conversation: ConversationSummary
    public var role: ChatRole
    /// The matching part of the message, the matches between the markers the search was given.
    public var excerpt: String
}

extension LoggedConversation {
    /// The messages as a session's history, to go on with the conversation: each reply after
    /// its rounds of tool calls.
    public var history: [ChatMessage] {
        messages.flatMap { message in
            (message.reply?.rounds ?? []).flatMap { round in
                [ChatMessage(.assistant, round.first?.roundText ?? "", toolCalls: round.map(\.call))]
                    + round.map { ChatMessage(.tool, $0.result ?? "", toolCallID: $0.call.id) }
            } + [ChatMessage(message.role, message.content, interrupted: message.reply?.interrupted ?? false)]
        }
    }

    /// The system prompt; `nil` for none.
    public var systemPrompt: String? {
        messages.first { $0.role == .system }?.content
    }

    /// The settings of its last generated reply — the parameters over `defaults` (the reply
    /// format is only described in the log, so `defaults`' stays) and the plugins, as specs —
    /// or `nil` if it has no generated reply.
    public func lastSettings(over defaults: GenerationParameters) -> (parameters: GenerationParameters, plugins: [String])? {
        guard let reply = messages.last(where: { $0.reply != nil })?.reply else { return nil }
        var parameters = reply.parameters.parameters
        parameters.format = defaults.format
        return (parameters, reply.plugins)
    }
}

extension LoggedReply {
    /// Its rounds of tool calls that have results (calls left to a caller have none), in order.
    public var rounds: [[LoggedToolCall]] {
        Dictionary(grouping: toolCalls.filter { $0.result != nil }, by: \.round).sorted { $0.key < $1.key }.map(\.value)
    }
}
