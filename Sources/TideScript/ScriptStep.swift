import TideCore
import TideFormat

/// What a script asks the runner to do, in order: its entries read as a conversation.
public enum ScriptStep: Sendable, Hashable {
    /// A setting from here on.
    case directive(Directive, line: Int)
    /// Sets the system prompt from here on.
    case system(String, line: Int)
    /// A user turn answered by an assistant turn written in the script (after rounds of tool
    /// calls written there too): history, not generated.
    case history(user: String, rounds: [ToolRound], assistant: String, reasoning: String?, line: Int)
    /// A user turn the model answers, and the checks on its reply.
    case reply(ReplyStep)
}

/// A user turn that the model answers.
public struct ReplyStep: Sendable, Hashable {
    /// The user's message.
    public var user: String
    /// The line of the user turn.
    public var line: Int
    /// The index in ``ConversationScript/entries`` of the user turn, or of the last turn of
    /// its written rounds: where a transcript writes the reply.
    public var entry: Int
    /// Rounds of tool calls written after the user turn (given, not generated): the model
    /// answers their results.
    public var given: [ToolRound] = []
    /// The reply a transcript recorded for this turn (`assistant:` + `@generated`), if any.
    public var recorded: RecordedReply?
    /// The checks on the reply, with their lines.
    public var expectations: [LocatedExpectation]
}

/// A reply as a transcript recorded it.
public struct RecordedReply: Sendable, Hashable {
    /// The reply's text: the answer after its rounds of tool calls.
    public var text: String
    /// How it ended and its length.
    public var record: ReplyRecord
    /// Its rounds of tool calls, before the answer.
    public var rounds: [ToolRound]
    /// A thinking model's reasoning before the answer (`reasoning:`); `nil` for none.
    public var reasoning: String?

    /// A recorded reply.
    public init(text: String, record: ReplyRecord, rounds: [ToolRound] = [], reasoning: String? = nil) {
        self.text = text
        self.record = record
        self.rounds = rounds
        self.reasoning = reasoning
    }

    /// The reply as teacher forcing checks it: the rounds' calls as the model wrote them, then the
    /// reasoning and the answer.
    public var turn: RecordedTurn {
        RecordedTurn(rounds: rounds.map { RecordedTurn.Round(text: $0.text, calls: $0.calls(at: 0)) }, answer: text,
                     reasoning: reasoning)
    }

    /// The reply's turns in a transcript: its rounds, its reasoning, its answer.
    var items: [ScriptItem] {
        rounds.flatMap(\.items) + (reasoning.map { [.turn(Turn(.reasoning, $0))] } ?? []) + [.turn(Turn(.assistant, text))]
    }
}

/// One round of tool calls in a script: what the assistant said before the calls (an
/// `assistant:` turn, often absent), the calls (`tool-call:` turns, each the call's JSON as
/// written), and their results (`tool:` turns), in order.
public struct ToolRound: Sendable, Hashable, Codable {
    /// The assistant's text before the calls.
    public var text: String
    /// Each call's JSON, `{"name": …, "arguments": {…}}`, as written (checked by the parser).
    public var calls: [String]
    /// What each call gave, in the calls' order.
    public var results: [String]

    /// A round.
    public init(text: String = "", calls: [String], results: [String]) {
        self.text = text
        self.calls = calls
        self.results = results
    }

    /// The calls, numbered as a session numbers those of the assistant message at `index` of a
    /// conversation (`call_INDEX_1`, …).
    public func calls(at index: Int) -> [ToolCall] {
        calls.enumerated().map { number, json in
            let id = "call_\(index)_\(number + 1)"
            return (try? ToolCall(json: json, id: id)) ?? ToolCall(id: id, name: "", arguments: "{}", written: json)
        }
    }

    /// The round as the messages of a conversation whose next message is at `index`: the
    /// assistant's, with its calls, then one `tool` message per result.
    public func messages(at index: Int) -> [ChatMessage] {
        let calls = calls(at: index)
        return [ChatMessage(.assistant, text, toolCalls: calls)]
            + zip(calls, results).map { ChatMessage(.tool, $1, toolCallID: $0.id) }
    }

    /// `rounds` as messages from `index` on.
    public static func messages(_ rounds: [ToolRound], at index: Int) -> [ChatMessage] {
        var messages: [ChatMessage] = []
        for round in rounds { messages += round.messages(at: index + messages.count) }
        return messages
    }

    /// The rounds in `messages`: each assistant message with calls, with the `tool` messages
    /// after it (a call without a result is given an empty one).
    public static func rounds(in messages: some Sequence<ChatMessage>) -> [ToolRound] {
        var rounds: [ToolRound] = []
        for message in messages {
            if message.role == .assistant, !message.toolCalls.isEmpty {
                rounds.append(ToolRound(text: message.content, calls: message.toolCalls.map(\.json), results: []))
            } else if message.role == .tool, !rounds.isEmpty, rounds[rounds.count - 1].results.count < rounds[rounds.count - 1].calls.count {
                rounds[rounds.count - 1].results.append(message.content)
            }
        }
        for index in rounds.indices {
            rounds[index].results += Array(repeating: "", count: rounds[index].calls.count - rounds[index].results.count)
        }
        return rounds
    }

    /// The round as script items.
    public var items: [ScriptItem] {
        (text.isEmpty ? [] : [.turn(Turn(.assistant, text))]) + calls.map { .turn(Turn(.toolCall, $0)) }
            + results.map { .turn(Turn(.tool, $0)) }
    }
}

/// An expectation and its line.
public struct LocatedExpectation: Sendable, Hashable {
    public var expectation: Expectation
    public var line: Int
}

extension ConversationScript {
    /// The script as a conversation. The parser has checked the order of turns, so every
    /// expectation follows a reply and every written assistant turn follows a user turn.
    public var steps: [ScriptStep] {
        var steps: [ScriptStep] = []
        var index = 0
        while index < entries.count {
            let entry = entries[index]
            switch entry.item {
            case .directive(let directive): steps.append(.directive(directive, line: entry.line))
            case .turn(let turn) where turn.role == .system: steps.append(.system(turn.text, line: entry.line))
            case .turn(let turn) where turn.role == .user:
                var reply = ReplyStep(user: turn.text, line: entry.line, entry: index, recorded: nil, expectations: [])
                var next = index + 1
                var rounds: [ToolRound] = []
                var answer: String?
                var reasoning: String?
                var record: ReplyRecord?
                scan: while next < entries.count {
                    switch entries[next].item {
                    case .blank, .comment: next += 1
                    case .turn(let following) where following.role == .reasoning && answer == nil && record == nil:
                        reasoning = following.text
                        next += 1
                    case .turn(let following) where following.role == .assistant && answer == nil && record == nil:
                        answer = following.text
                        next += 1
                    case .turn(let following) where following.role == .toolCall && record == nil:
                        // An assistant turn before a call is the round's text; a call after results opens a round.
                        if answer != nil || rounds.isEmpty || !(rounds.last!.results.isEmpty) {
                            rounds.append(ToolRound(text: answer ?? "", calls: [], results: []))
                            answer = nil
                        }
                        rounds[rounds.count - 1].calls.append(following.text)
                        next += 1
                    case .turn(let following) where following.role == .tool && record == nil:
                        rounds[rounds.count - 1].results.append(following.text)
                        reply.entry = next
                        next += 1
                    case .generated(let generated):
                        record = generated
                        next += 1
                    case .expectation(let expectation):
                        reply.expectations.append(LocatedExpectation(expectation: expectation, line: entries[next].line))
                        next += 1
                    default: break scan
                    }
                }
                if let answer, let record {
                    let own = min(record.rounds, rounds.count)
                    reply.given = Array(rounds.dropLast(own))
                    reply.recorded = RecordedReply(text: answer, record: record, rounds: Array(rounds.suffix(own)), reasoning: reasoning)
                    reply.entry = reply.given.isEmpty ? index : Self.lastResult(of: reply.given, after: index, in: entries)
                    steps.append(.reply(reply))
                } else if let answer {
                    steps.append(.history(user: turn.text, rounds: rounds, assistant: answer, reasoning: reasoning, line: entry.line))
                } else {
                    reply.given = rounds
                    steps.append(.reply(reply))
                }
                // Comments and blanks after the exchange are not steps; go on after the last consumed item.
                index = next
                continue
            default: break
            }
            index += 1
        }
        return steps
    }

    /// The index of the last `tool:` turn of `rounds`, the first rounds written after the user
    /// turn at `user`.
    private static func lastResult(of rounds: [ToolRound], after user: Int, in entries: [ScriptEntry]) -> Int {
        var remaining = rounds.reduce(0) { $0 + $1.results.count }
        var index = user
        while remaining > 0 {
            index += 1
            if case .turn(let turn) = entries[index].item, turn.role == .tool { remaining -= 1 }
        }
        return index
    }

    /// The pass rate of each expectation under `tide run --repeat`, in script order: the last
    /// `@min-pass` before it, else `default`.
    public func minimumPassRates(default rate: PassRate) -> [PassRate] {
        var current = rate
        var rates: [PassRate] = []
        for step in steps {
            switch step {
            case .directive(.minimumPassRate(let rate), _): current = rate
            case .reply(let reply): rates += reply.expectations.map { _ in current }
            default: break
            }
        }
        return rates
    }

    /// This script with replies filled in: each answered user turn gets (or has replaced) its
    /// `assistant:` turn and `@generated` record; everything else is kept. `replies` is keyed by
    /// ``ReplyStep/entry``.
    public func transcript(replies: [Int: RecordedReply]) -> ConversationScript {
        let recorded = Set(steps.compactMap { step -> Int? in
            if case .reply(let reply) = step, reply.recorded != nil { reply.entry } else { nil }
        })
        var result: [ScriptEntry] = []
        var skipRecorded = false
        for (index, entry) in entries.enumerated() {
            if skipRecorded {
                switch entry.item {
                case .turn(let turn) where turn.role != .user && turn.role != .system: continue
                case .generated:
                    skipRecorded = false
                    continue
                case .blank, .comment: break
                default: skipRecorded = false
                }
            }
            result.append(entry)
            if let reply = replies[index] {
                result += reply.items.map { ScriptEntry($0) }
                result.append(ScriptEntry(.generated(reply.record)))
                skipRecorded = recorded.contains(index)
            }
        }
        var transcript = ConversationScript(entries: result)
        transcript.variables = variables
        return transcript
    }
}
