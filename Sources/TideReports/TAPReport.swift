import Foundation
import TideRunner

/// `tide run --tap`: the Test Anything Protocol (version 14) on standard output — one test point
/// per check, numbered across scripts as they finish, failures with a YAML block holding what was
/// found and the reply, a `not ok` point for a script that could not run, and the plan last.
struct TAPReport {
    private var number = 0

    /// The version line, first.
    static let header = "TAP version 14"

    /// The test points of one script.
    mutating func lines(for outcome: ScriptOutcome) -> [String] {
        var lines: [String] = []
        for check in outcome.checks {
            number += 1
            let point = "\(check.passed ? "ok" : "not ok") \(number) - " + Self.description("\(outcome.label):\(check.line) \(check.text)")
            lines.append(outcome.runs > 1 ? point + " (\(check.passes)/\(check.runs) runs)" : point)
            if !check.passed {
                lines += Self.block(["message": check.detail ?? "", "reply": check.reply ?? "",
                                     "runs": outcome.runs > 1 ? "\(check.passes) of \(check.runs), needs \(check.rate)" : nil])
            }
        }
        if let failure = outcome.failure {
            number += 1
            lines.append("not ok \(number) - " + Self.description("\(outcome.label): the script could not run to its end"))
            lines += Self.block(["message": failure])
        }
        return lines
    }

    /// The plan, last: how many test points there were.
    var plan: String { "1..\(number)" }

    /// A description on one line, without what TAP would read as a directive (`#`).
    static func description(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "#", with: "\\#")
            .replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
    }

    /// A YAML diagnostic block of double-quoted strings (JSON string syntax is valid YAML).
    static func block(_ fields: [String: String?]) -> [String] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        let entries = fields.compactMap { key, value in value.map { (key, $0) } }.sorted { $0.0 < $1.0 }
        return ["  ---"] + entries.map { key, value in
            "  \(key): " + String(decoding: (try? encoder.encode(value)) ?? Data("\"\"".utf8), as: UTF8.self)
        } + ["  ..."]
    }
}
