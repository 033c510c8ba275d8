/// What a script asks the runner to do, in order: its entries read as a conversation.
public enum ScriptStep: Sendable, Hashable {
    /// A setting from here on.
    case directive(Directive, line: Int)
    /// Sets the system prompt from here on.
    case system(String, line: Int)
    /// A user turn answered by an assistant turn written in the script: history, not generated.
    case history(user: String, assistant: String, line: Int)
    /// A user turn the model answers, and the checks on its reply.
    case reply(ReplyStep)
}

/// A user turn that the model answers.
public struct ReplyStep: Sendable, Hashable {
    /// The user's message.
    public var user: String
    /// The line of the user turn.
    public var line: Int
    /// The index of the user turn in ``ConversationScript/entries``.
    public var entry: Int
    /// The reply a transcript recorded for this turn (`assistant:` + `@generated`), if any.
    public var recorded: RecordedReply?
    /// The checks on the reply, with their lines.
    public var expectations: [LocatedExpectation]
}

/// A reply as a transcript recorded it.
public struct RecordedReply: Sendable, Hashable {
    /// The reply's text.
    public var text: String
    /// How it ended and its length.
    public var record: ReplyRecord

    /// A recorded reply.
    public init(text: String, record: ReplyRecord) {
        self.text = text
        self.record = record
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
                var answer: String?
                scan: while next < entries.count {
                    switch entries[next].item {
                    case .blank, .comment: next += 1
                    case .turn(let following) where following.role == .assistant && answer == nil:
                        answer = following.text
                        next += 1
                    case .generated(let record):
                        reply.recorded = answer.map { RecordedReply(text: $0, record: record) }
                        next += 1
                    case .expectation(let expectation):
                        reply.expectations.append(LocatedExpectation(expectation: expectation, line: entries[next].line))
                        next += 1
                    default: break scan
                    }
                }
                if let answer, reply.recorded == nil {
                    steps.append(.history(user: turn.text, assistant: answer, line: entry.line))
                } else {
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
                case .turn(let turn) where turn.role == .assistant: continue
                case .generated:
                    skipRecorded = false
                    continue
                case .blank, .comment: break
                default: skipRecorded = false
                }
            }
            result.append(entry)
            if let reply = replies[index] {
                result.append(ScriptEntry(.turn(Turn(.assistant, reply.text))))
                result.append(ScriptEntry(.generated(reply.record)))
                skipRecorded = recorded.contains(index)
            }
        }
        return ConversationScript(entries: result)
    }
}
