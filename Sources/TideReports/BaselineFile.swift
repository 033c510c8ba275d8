import Foundation
import TideRunner
import TideScript

/// A run's `--json` report read back as its cases' outcomes, to compare a later run with
/// (`tide run --baseline FILE.json`): the objects of single runs (`replies` with their
/// `expectations` and `golden`), those of repeated runs (`checks`), and the closing `summary`,
/// which carries no case.
public enum BaselineFile {
    /// Why a file cannot serve as a baseline.
    public struct Problem: Error, CustomStringConvertible {
        public let description: String
    }

    /// The outcomes in `path`'s JSON lines.
    public static func outcomes(at path: String) throws -> [ScriptOutcome] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue,
              let data = FileManager.default.contents(atPath: path) else {
            throw Problem(description: "cannot read the baseline \(path): " + (isFolder.boolValue ? "it is a folder" : "no such file")
                          + "; save an earlier run's report with tide run --json … > \(path)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw Problem(description: "the baseline \(path) is not UTF-8 text; a baseline is the standard output of tide run --json")
        }
        return try outcomes(in: text, from: path)
    }

    /// The outcomes in `text`, the JSON lines of `path`.
    static func outcomes(in text: String, from path: String) throws -> [ScriptOutcome] {
        var outcomes: [ScriptOutcome] = []
        for (index, line) in text.split(whereSeparator: \.isNewline).enumerated() where !line.allSatisfy(\.isWhitespace) {
            let record: Record
            do {
                record = try JSONDecoder().decode(Record.self, from: Data(line.utf8))
            } catch {
                throw Problem(description: "\(path):\(index + 1): not a case of tide run --json (\(Self.reason(error))); "
                              + "a baseline is the standard output of tide run --json")
            }
            guard record.summary == nil else { continue }
            guard let outcome = record.outcome else {
                throw Problem(description: "\(path):\(index + 1): not a case of tide run --json (no file); "
                              + "a baseline is the standard output of tide run --json")
            }
            outcomes.append(outcome)
        }
        if outcomes.isEmpty {
            throw Problem(description: "\(path) holds no case of tide run --json; a baseline is the standard output of tide run --json")
        }
        return outcomes
    }

    private static func reason(_ error: Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "no \(key.stringValue)"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        default: "not JSON"
        }
    }

    /// One line of the report: a case (a single run's or repeated runs') or the summary.
    private struct Record: Decodable {
        struct Expectation: Decodable {
            var line: Int
            var expectation: String
            var passed: Bool
            var measure: Double?
        }
        struct Golden: Decodable {
            var matches: Bool
        }
        struct Reply: Decodable {
            var line: Int
            var expectations: [Expectation]
            var golden: Golden?
        }
        struct Check: Decodable {
            var line: Int
            var expectation: String
            var passes: Int
            var runs: Int
            var min_pass: Double
            var measures: [Double]?
        }
        /// The closing line's object, whatever it holds.
        struct Summary: Decodable {}
        var summary: Summary?
        var file: String?
        var name: String?
        var row: String?
        var target: String?
        var error: String?
        var seconds: Double?
        var runs: Int?
        var replies: [Reply]?
        var checks: [Check]?

        /// The case it holds; `nil` when it names no file.
        var outcome: ScriptOutcome? {
            guard let file else { return nil }
            let checks: [CheckOutcome] = if let checks = self.checks {
                checks.map {
                    CheckOutcome(line: $0.line, text: $0.expectation, passes: $0.passes, runs: $0.runs,
                                 rate: PassRate(parsing: String($0.min_pass)) ?? .all, measures: $0.measures ?? [])
                }
            } else {
                (replies ?? []).flatMap { reply in
                    reply.expectations.map {
                        CheckOutcome(line: $0.line, text: $0.expectation, passes: $0.passed ? 1 : 0, runs: 1, rate: .all,
                                     measures: $0.measure.map { [$0] } ?? [])
                    } + (reply.golden.map {
                        [CheckOutcome(line: reply.line, text: CheckOutcome.goldenText, passes: $0.matches ? 1 : 0, runs: 1, rate: .all)]
                    } ?? [])
                }
            }
            return ScriptOutcome(file: file, name: name ?? file, checks: checks, failure: error, runs: runs ?? 1, row: row,
                                 target: target, seconds: seconds ?? 0)
        }
    }
}
