import Foundation
import TideCore
import TideFormat
import TideLua
import TideRegex
import TideScript

/// What a check found on a reply.
struct CheckFinding {
    /// Whether the check holds; `nil` when it could not be decided.
    var held: Bool?
    /// What was found (empty when the check itself says it all), or why it could not be decided.
    var fact = ""
    /// What a check that measures measured.
    var measure: Double? = nil
}

extension ExpectationChecker {
    /// How a kind of check is evaluated: on its argument and the reply, with the checker's limits
    /// and loaded schemas.
    typealias Evaluator = @Sendable (CheckArgument, Reply, ExpectationChecker) -> CheckFinding

    /// The evaluator of every kind of ``CheckKind/all``, by kind.
    static let evaluators: [CheckKind: Evaluator] = [
        .contains: contains(ignoringCase: false), .icontains: contains(ignoringCase: true),
        .equals: matches(.whole, ignoringCase: false), .iequals: matches(.whole, ignoringCase: true),
        .startsWith: matches(.start, ignoringCase: false), .istartsWith: matches(.start, ignoringCase: true),
        .endsWith: matches(.end, ignoringCase: false), .iendsWith: matches(.end, ignoringCase: true),
        .containsAny: containsAny(ignoringCase: false), .icontainsAny: containsAny(ignoringCase: true),
        .containsAll: containsAll(ignoringCase: false), .icontainsAll: containsAll(ignoringCase: true),
        .regex: { argument, reply, checker in
            // Scripts are checked when parsed; a transcript built in code may still hold a bad pattern.
            let pattern: Pattern
            do {
                pattern = try Pattern(argument.text ?? "")
            } catch {
                return CheckFinding(fact: "the regular expression does not compile: \(error)")
            }
            do {
                return CheckFinding(held: try pattern.matches(reply.text, budget: checker.regexBudget.matchBudget()))
            } catch {
                return CheckFinding(fact: checker.regexBudget.explain(error, characters: reply.text.count))
            }
        },
        .length: counted { reply in (reply.text.count, "the reply has \(reply.text.count) characters") },
        .words: counted { reply in
            let count = words(in: reply.text)
            return (count, "the reply has \(count) words")
        },
        .sentences: counted { reply in
            let count = sentences(in: reply.text)
            return (count, "the reply has \(count) sentences")
        },
        .tokens: counted { reply in (reply.tokens, "the reply has \(reply.tokens) tokens") },
        .timeToFirstToken: counted { reply in
            guard let time = reply.timeToFirstToken else { return (nil, "the reply has no first token to time") }
            let milliseconds = Int((time.seconds * 1000).rounded())
            return (milliseconds, "its first token came after \(milliseconds) ms")
        },
        .rate: counted { reply in
            guard let rate = reply.tokensPerSecond else { return (nil, "the reply is too short to have a decode rate") }
            return (Int(rate.rounded(.down)), "it decoded at \(String(format: "%.1f", rate)) tok/s")
        },
        .toolRounds: counted { reply in
            (reply.toolRounds, "the reply made \(reply.toolRounds) round\(reply.toolRounds == 1 ? "" : "s") of tool calls")
        },
        .stop: { argument, reply, _ in
            let reason = argument.text ?? ""
            let matches = reply.stopReason == reason || reply.stopReason.hasPrefix(reason + ":")
            return CheckFinding(held: matches, fact: "it stopped with \(reply.stopReason)")
        },
        .json: { _, reply, _ in
            do {
                _ = try JSONValue(parsing: reply.text)
                return CheckFinding(held: true)
            } catch {
                return notJSON(error)
            }
        },
        .jsonSchema: { argument, reply, checker in
            let file = argument.text ?? ""
            guard let schema = checker.schemas[file] else { return notLoaded(file) }
            let value: JSONValue
            do {
                value = try JSONValue(parsing: reply.text)
            } catch {
                return notJSON(error)
            }
            let violations = schema.violations(of: value)
            return CheckFinding(held: violations.isEmpty, fact: "the reply is not valid: " + shown(violations))
        },
        .sameAsRecorded: { _, reply, _ in
            guard let recorded = reply.recorded else { return noRecording }
            let text = Replay.transcriptText(reply.text)
            return CheckFinding(held: text == recorded,
                                fact: "it differs from the recorded reply:\n" + TextDiff.lines(from: recorded, to: text))
        },
        .toolCall: { argument, reply, _ in
            let called = reply.toolCalls.map(\.name)
            return CheckFinding(held: called.contains(argument.text ?? ""),
                                fact: called.isEmpty ? "the reply called no tool" : "the reply called " + called.joined(separator: ", "))
        },
        .toolArguments: { argument, reply, checker in
            let written = argument.text ?? ""
            guard let schema = checker.schemas[written] else { return notLoaded(written) }
            guard !reply.toolCalls.isEmpty else { return CheckFinding(held: false, fact: "the reply called no tool") }
            for call in reply.toolCalls {
                guard let arguments = try? JSONValue(parsing: call.arguments) else {
                    return CheckFinding(held: false, fact: "the arguments of the call of \(call.name) are not JSON: \(call.arguments)")
                }
                let violations = schema.violations(of: arguments)
                guard violations.isEmpty else {
                    return CheckFinding(held: false, fact: "the arguments of the call of \(call.name), \(call.arguments), are not valid: "
                                        + shown(violations))
                }
            }
            return CheckFinding(held: true, fact: "the arguments of every call are valid")
        },
        .perplexity: measured { reply in
            reply.logprobs.perplexity.map {
                ($0, "its perplexity is \(String(format: "%.3f", $0)) over \(reply.logprobs.count) tokens")
            } ?? (nil, "the reply has no tokens to score")
        },
        .meanLogprob: measured { reply in
            reply.logprobs.meanLogprob.map {
                ($0, "its mean log-probability is \(String(format: "%.4f", $0)) over \(reply.logprobs.count) tokens")
            } ?? (nil, "the reply has no tokens to score")
        },
        .similar: { argument, reply, _ in
            guard case .textAndMeasure(let text, let bound) = argument else { return CheckFinding() }
            return similarity(reply, bound, reply.similarities.toText[text], to: "")
        },
        .similarToRecorded: { argument, reply, _ in
            guard case .measure(let bound) = argument else { return CheckFinding() }
            guard reply.recorded != nil else { return noRecording }
            return similarity(reply, bound, reply.similarities.toRecorded, to: " to the recorded reply")
        },
        .judge: { argument, reply, _ in
            switch reply.verdicts[argument.text ?? ""] {
            case .success(let verdict)?: CheckFinding(held: verdict.passed, fact: "the judge: \(verdict.reason)")
            case .failure(let failure)?: CheckFinding(fact: failure.description)
            case nil: CheckFinding(fact: "no judge gave a verdict")
            }
        },
        .lua: { argument, reply, checker in
            do throws(LuaError) {
                let predicate = try LuaPredicate(argument.text ?? "", limits: checker.limits)
                let held = try predicate.holds(reply: reply.text, tokens: reply.tokens, stopReason: reply.stopReason, user: reply.user)
                return CheckFinding(held: held, fact: "the expression is false")
            } catch {
                return CheckFinding(held: false, fact: "Lua error: \(error.message)")
            }
        },
    ]

    // MARK: Evaluators a few kinds share

    private static func contains(ignoringCase: Bool) -> Evaluator {
        { argument, reply, _ in
            CheckFinding(held: reply.text.range(of: argument.text ?? "", options: ignoringCase ? [.caseInsensitive] : []) != nil)
        }
    }

    /// Where a text must stand in the reply.
    private enum Place { case whole, start, end }

    private static func matches(_ place: Place, ignoringCase: Bool) -> Evaluator {
        { argument, reply, _ in
            let text = argument.text ?? ""
            let trimmed = reply.text.trimmingCharacters(in: .whitespacesAndNewlines)
            let options: String.CompareOptions = ignoringCase ? [.caseInsensitive] : []
            let found = switch place {
            case .whole: trimmed.compare(text, options: options) == .orderedSame
            case .start: trimmed.range(of: text, options: options.union(.anchored)) != nil
            case .end: trimmed.range(of: text, options: options.union([.anchored, .backwards])) != nil
            }
            return CheckFinding(held: found)
        }
    }

    private static func containsAny(ignoringCase: Bool) -> Evaluator {
        { argument, reply, _ in
            guard case .texts(let texts) = argument else { return CheckFinding() }
            let found = texts.filter { reply.text.range(of: $0, options: ignoringCase ? [.caseInsensitive] : []) != nil }
            return CheckFinding(held: !found.isEmpty, fact: found.isEmpty ? "none of them is in the reply" : "it contains " + quoted(found))
        }
    }

    private static func containsAll(ignoringCase: Bool) -> Evaluator {
        { argument, reply, _ in
            guard case .texts(let texts) = argument else { return CheckFinding() }
            let missing = texts.filter { reply.text.range(of: $0, options: ignoringCase ? [.caseInsensitive] : []) == nil }
            return CheckFinding(held: missing.isEmpty, fact: missing.isEmpty ? "it contains them all" : "missing " + quoted(missing))
        }
    }

    /// A check of a count's bound: the count (`nil` when there is none, with why) and what it is.
    private static func counted(_ count: @escaping @Sendable (Reply) -> (Int?, String)) -> Evaluator {
        { argument, reply, _ in
            guard case .count(let bound) = argument else { return CheckFinding() }
            let (value, fact) = count(reply)
            return CheckFinding(held: value.map(bound.contains), fact: fact)
        }
    }

    /// A check of a measure's bound: the measure (`nil` when there is none, with why) and what it is.
    private static func measured(_ measure: @escaping @Sendable (Reply) -> (Double?, String)) -> Evaluator {
        { argument, reply, _ in
            guard case .measure(let bound) = argument else { return CheckFinding() }
            let (value, fact) = measure(reply)
            return CheckFinding(held: value.map(bound.contains), fact: fact, measure: value)
        }
    }

    /// A similarity check: an empty reply has no meaning to compare, though its vector is as
    /// near some texts as a real reply's (0.51 to "hello" with all-MiniLM-L6-v2).
    private static func similarity(_ reply: Reply, _ bound: MeasureBound, _ similarity: Double?, to what: String) -> CheckFinding {
        guard !reply.text.allSatisfy(\.isWhitespace) else {
            return CheckFinding(fact: "the reply is empty: an empty reply has no meaning to compare, so a similarity check fails on it")
        }
        guard let similarity else { return CheckFinding(fact: reply.similarities.problem ?? "no similarity was measured") }
        return CheckFinding(held: bound.contains(similarity), fact: "its similarity\(what) is \(String(format: "%.3f", similarity))",
                            measure: similarity)
    }

    private static let noRecording = CheckFinding(
        fact: "the turn has no recorded reply to compare with; record one with --out DIR (transcripts) or --update (golden transcripts)")

    private static func notLoaded(_ schema: String) -> CheckFinding { CheckFinding(fact: "the schema \(schema) was not loaded") }

    private static func notJSON(_ error: any Error) -> CheckFinding {
        CheckFinding(held: false, fact: "the reply is not JSON: \(error)")
    }

    private static func shown(_ violations: [SchemaViolation]) -> String {
        violations.prefix(3).map(\.description).joined(separator: "; ") + (violations.count > 3 ? "; …" : "")
    }

    private static func quoted(_ texts: [String]) -> String { texts.map { "\"\($0)\"" }.joined(separator: ", ") }
}
