import Foundation
import TideCore
import TideFormat
import TideLua
import TideRegex
import TideScript

/// Checks expectations against a generated reply.
struct ExpectationChecker {
    let limits: LuaLimits
    /// The work one `regex` check may do.
    let regexBudget: RegexBudget
    /// The schemas of `expect: json-schema FILE` and `expect: tool-args FILE|{…}`, by the argument as written.
    var schemas: [String: JSONSchema] = [:]

    /// What the checks look at.
    struct Reply {
        var text: String
        var tokens: Int
        var stopReason: String
        var user: String
        var timeToFirstToken: Duration? = nil
        var tokensPerSecond: Double? = nil
        /// The reply recorded for the turn (a transcript's or a golden transcript's), if any.
        var recorded: String? = nil
        /// The tools the reply called, over its rounds.
        var toolCalls: [ToolCall] = []
        /// The rounds of tool calls it made.
        var toolRounds = 0
        /// The log-probabilities of its tokens, when a check needed them (``ReplySummary/logprobs``).
        var logprobs: [TokenLogprob] = []
        /// How alike in meaning it is to what its similarity checks compare it with.
        var similarities = Similarities()
        /// The judge's verdicts, by rubric, or why it gave none.
        var verdicts: [String: Result<Judge.Verdict, JudgeFailure>] = [:]
    }

    /// The cosine similarities of a reply's meaning to the texts its `similar` checks name, and to
    /// its recording, as an embedding model reads them; or why none could be measured.
    struct Similarities {
        /// By the text compared with.
        var toText: [String: Double] = [:]
        /// To the reply recorded for the turn.
        var toRecorded: Double?
        /// Why the similarities could not be measured (no embedding model, or its failure).
        var problem: String?
    }

    func check(_ located: LocatedExpectation, on reply: Reply) -> ExpectationResult {
        let expectation = located.expectation
        let (outcome, fact) = evaluate(expectation.check, on: reply)
        // A check that could not be decided fails, with or without `not`.
        guard var held = outcome else {
            return ExpectationResult(expectation: expectation, line: located.line, passed: false, detail: fact)
        }
        if expectation.negated { held.toggle() }
        let detail = held ? "" : fact.isEmpty ? (expectation.negated ? "it does" : "it does not") : fact
        var result = ExpectationResult(expectation: expectation, line: located.line, passed: held, detail: detail,
                                       measure: Self.measure(of: expectation.check, on: reply))
        if case .judge(let rubric) = expectation.check, case .success(let verdict)? = reply.verdicts[rubric] {
            result.reason = (verdict.recorded ? "recorded: " : "") + verdict.reason
        }
        return result
    }

    /// What a check that measures found on `reply`.
    private static func measure(of check: Expectation.Check, on reply: Reply) -> Double? {
        switch check {
        case .perplexity: reply.logprobs.perplexity
        case .meanLogprob: reply.logprobs.meanLogprob
        case .similar(let text, _): reply.similarities.toText[text]
        case .similarToRecorded: reply.similarities.toRecorded
        default: nil
        }
    }

    /// Whether the check holds (nil when it could not be decided), and what was measured (empty
    /// when the check itself says it all) or why it could not be decided.
    private func evaluate(_ check: Expectation.Check, on reply: Reply) -> (Bool?, String) {
        switch check {
        case .contains(let text, let ignoringCase):
            let found = reply.text.range(of: text, options: ignoringCase ? [.caseInsensitive] : []) != nil
            return (found, "")
        case .matches(let place, let text, let ignoringCase):
            let reply = reply.text.trimmingCharacters(in: .whitespacesAndNewlines)
            let options: String.CompareOptions = ignoringCase ? [.caseInsensitive] : []
            let found = switch place {
            case .whole: reply.compare(text, options: options) == .orderedSame
            case .start: reply.range(of: text, options: options.union(.anchored)) != nil
            case .end: reply.range(of: text, options: options.union([.anchored, .backwards])) != nil
            }
            return (found, "")
        case .containsAny(let texts, let ignoringCase):
            let found = texts.filter { reply.text.range(of: $0, options: ignoringCase ? [.caseInsensitive] : []) != nil }
            return (!found.isEmpty, found.isEmpty ? "none of them is in the reply" : "it contains " + found.map { "\"\($0)\"" }.joined(separator: ", "))
        case .containsAll(let texts, let ignoringCase):
            let missing = texts.filter { reply.text.range(of: $0, options: ignoringCase ? [.caseInsensitive] : []) == nil }
            return (missing.isEmpty, missing.isEmpty ? "it contains them all" : "missing " + missing.map { "\"\($0)\"" }.joined(separator: ", "))
        case .words(let bound):
            let count = Self.words(in: reply.text)
            return (bound.contains(count), "the reply has \(count) words")
        case .sentences(let bound):
            let count = Self.sentences(in: reply.text)
            return (bound.contains(count), "the reply has \(count) sentences")
        case .timeToFirstToken(let bound):
            guard let time = reply.timeToFirstToken else { return (nil, "the reply has no first token to time") }
            let milliseconds = Int((time.seconds * 1000).rounded())
            return (bound.contains(milliseconds), "its first token came after \(milliseconds) ms")
        case .rate(let bound):
            guard let rate = reply.tokensPerSecond else { return (nil, "the reply is too short to have a decode rate") }
            return (bound.contains(Int(rate.rounded(.down))), "it decoded at \(String(format: "%.1f", rate)) tok/s")
        case .regex(let source):
            // Scripts are checked when parsed; a transcript built in code may still hold a bad pattern.
            let pattern: Pattern
            do {
                pattern = try Pattern(source)
            } catch {
                return (nil, "the regular expression does not compile: \(error)")
            }
            do {
                return (try pattern.matches(reply.text, budget: regexBudget.matchBudget()), "")
            } catch {
                return (nil, regexBudget.explain(error, characters: reply.text.count))
            }
        case .length(let bound):
            return (bound.contains(reply.text.count), "the reply has \(reply.text.count) characters")
        case .tokens(let bound):
            return (bound.contains(reply.tokens), "the reply has \(reply.tokens) tokens")
        case .perplexity(let bound):
            guard let perplexity = reply.logprobs.perplexity else { return (nil, "the reply has no tokens to score") }
            return (bound.contains(perplexity), "its perplexity is \(String(format: "%.3f", perplexity)) over \(reply.logprobs.count) tokens")
        case .meanLogprob(let bound):
            guard let mean = reply.logprobs.meanLogprob else { return (nil, "the reply has no tokens to score") }
            return (bound.contains(mean), "its mean log-probability is \(String(format: "%.4f", mean)) over \(reply.logprobs.count) tokens")
        case .similar(let text, let bound):
            if let empty = Self.emptyReplyFailure(reply.text) { return empty }
            guard let similarity = reply.similarities.toText[text] else {
                return (nil, reply.similarities.problem ?? "no similarity was measured")
            }
            return (bound.contains(similarity), "its similarity is \(String(format: "%.3f", similarity))")
        case .similarToRecorded(let bound):
            if let empty = Self.emptyReplyFailure(reply.text) { return empty }
            guard reply.recorded != nil else {
                return (nil, "the turn has no recorded reply to compare with; record one with --out DIR (transcripts) "
                    + "or --update (golden transcripts)")
            }
            guard let similarity = reply.similarities.toRecorded else {
                return (nil, reply.similarities.problem ?? "no similarity was measured")
            }
            return (bound.contains(similarity), "its similarity to the recorded reply is \(String(format: "%.3f", similarity))")
        case .judge(let rubric):
            switch reply.verdicts[rubric] {
            case .success(let verdict)?: return (verdict.passed, "the judge: \(verdict.reason)")
            case .failure(let failure)?: return (nil, failure.description)
            case nil: return (nil, "no judge gave a verdict")
            }
        case .stop(let reason):
            let matches = reply.stopReason == reason || reply.stopReason.hasPrefix(reason + ":")
            return (matches, "it stopped with \(reply.stopReason)")
        case .json:
            do {
                _ = try JSONValue(parsing: reply.text)
                return (true, "")
            } catch {
                return (false, "the reply is not JSON: \(error)")
            }
        case .jsonSchema(let file):
            guard let schema = schemas[file] else { return (nil, "the schema \(file) was not loaded") }
            let value: JSONValue
            do {
                value = try JSONValue(parsing: reply.text)
            } catch {
                return (false, "the reply is not JSON: \(error)")
            }
            let violations = schema.violations(of: value)
            let shown = violations.prefix(3).map(\.description).joined(separator: "; ")
            return (violations.isEmpty, "the reply is not valid: " + shown + (violations.count > 3 ? "; …" : ""))
        case .sameAsRecorded:
            guard let recorded = reply.recorded else {
                return (nil, "the turn has no recorded reply to compare with; record one with --out DIR (transcripts) "
                    + "or --update (golden transcripts)")
            }
            let text = Replay.transcriptText(reply.text)
            return (text == recorded, "it differs from the recorded reply:\n" + TextDiff.lines(from: recorded, to: text))
        case .toolCall(let name):
            let called = reply.toolCalls.map(\.name)
            return (called.contains(name), called.isEmpty ? "the reply called no tool" : "the reply called " + called.joined(separator: ", "))
        case .toolArguments(let written):
            guard let schema = schemas[written] else { return (nil, "the schema \(written) was not loaded") }
            guard !reply.toolCalls.isEmpty else { return (false, "the reply called no tool") }
            for call in reply.toolCalls {
                guard let arguments = try? JSONValue(parsing: call.arguments) else {
                    return (false, "the arguments of the call of \(call.name) are not JSON: \(call.arguments)")
                }
                let violations = schema.violations(of: arguments)
                guard violations.isEmpty else {
                    return (false, "the arguments of the call of \(call.name), \(call.arguments), are not valid: "
                                + violations.prefix(3).map(\.description).joined(separator: "; "))
                }
            }
            return (true, "the arguments of every call are valid")
        case .toolRounds(let bound):
            return (bound.contains(reply.toolRounds), "the reply made \(reply.toolRounds) round\(reply.toolRounds == 1 ? "" : "s") of tool calls")
        case .lua(let code):
            do {
                let predicate = try LuaPredicate(code, limits: limits)
                let held = try predicate.holds(reply: reply.text, tokens: reply.tokens, stopReason: reply.stopReason,
                                               user: reply.user)
                return (held, "the expression is false")
            } catch {
                return (false, "Lua error: \(error.message)")
            }
        }
    }

    /// Why a similarity check cannot be decided on `reply`, when it is empty or only white space:
    /// such a reply has no meaning to compare, though its vector is as near some texts as a
    /// real reply's (0.51 to "hello" with all-MiniLM-L6-v2). `nil` for a reply with words.
    private static func emptyReplyFailure(_ reply: String) -> (Bool?, String)? {
        guard reply.allSatisfy(\.isWhitespace) else { return nil }
        return (nil, "the reply is empty: an empty reply has no meaning to compare, so a similarity check fails on it")
    }

    /// Runs of characters between white space.
    static func words(in text: String) -> Int {
        text.split(whereSeparator: \.isWhitespace).count
    }

    /// Sentences: runs of text that end with `.`, `!` or `?` (repeats count once) followed by
    /// white space or the end, or that end the reply without one.
    static func sentences(in text: String) -> Int {
        let characters = Array(text)
        var count = 0
        var open = false
        for (index, character) in characters.enumerated() {
            if "!?.".contains(character) {
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                if open && (next == nil || next!.isWhitespace) {
                    count += 1
                    open = false
                }
            } else if !character.isWhitespace {
                open = true
            }
        }
        return count + (open ? 1 : 0)
    }
}
