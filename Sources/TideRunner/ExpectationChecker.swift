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
        let outcome = Self.evaluators[expectation.check.kind].map { $0(expectation.check.argument, reply, self) }
            ?? CheckFinding(fact: "Tide cannot evaluate a \(expectation.check.kind) check")
        // A check that could not be decided fails, with or without `not`.
        guard var held = outcome.held else {
            return ExpectationResult(expectation: expectation, line: located.line, passed: false, detail: outcome.fact)
        }
        if expectation.negated { held.toggle() }
        let detail = held ? "" : outcome.fact.isEmpty ? (expectation.negated ? "it does" : "it does not") : outcome.fact
        var result = ExpectationResult(expectation: expectation, line: located.line, passed: held, detail: detail,
                                       measure: outcome.measure)
        if expectation.check.kind == .judge, let rubric = expectation.check.argument.text,
           case .success(let verdict)? = reply.verdicts[rubric] {
            result.reason = (verdict.recorded ? "recorded: " : "") + verdict.reason
        }
        return result
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
