import Foundation
import TideRunner

/// A run of `tide run` as the journal keeps it: what was asked, how far it got, what it came to.
public struct JournaledRun: Sendable, Hashable, Encodable {
    /// Its number (`tide run --resume RUN`, `tide runs show RUN`).
    public var id: Int64
    /// When it started, and when it ran to its end (`nil` while unfinished: running, or
    /// stopped by Ctrl-C, a kill or a crash).
    public var started: Date
    public var finished: Date?
    /// The folder it ran in, and its arguments (after `tide run`, `--resume` left out).
    public var folder: String
    public var arguments: [String]
    /// The command line as reports show it.
    public var command: String
    /// The targets' labels (none for a run of one target), and the runs of each case (`--repeat`).
    public var targets: [String]
    public var repetitions: Int
    /// The runs of cases it is made of (cases × targets × repetitions), and how many are kept.
    public var jobs: Int
    public var kept: Int
    /// The counts of its last report: checks held, checks failed, cases that could not run.
    public var passed: Int?
    public var failed: Int?
    public var errors: Int?

    /// Whether it ran to its end.
    public var isFinished: Bool { finished != nil }

    private enum CodingKeys: String, CodingKey {
        case id, started, finished, folder, arguments, command, targets, repetitions, jobs, kept, passed, failed, errors
    }

    /// Its fields under their names, times in ISO 8601 (`tide runs list --json`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let format = ISO8601DateFormatter()
        try container.encode(id, forKey: .id)
        try container.encode(format.string(from: started), forKey: .started)
        try container.encodeIfPresent(finished.map(format.string(from:)), forKey: .finished)
        try container.encode(folder, forKey: .folder)
        try container.encode(arguments, forKey: .arguments)
        try container.encode(command, forKey: .command)
        try container.encode(targets, forKey: .targets)
        try container.encode(repetitions, forKey: .repetitions)
        try container.encode(jobs, forKey: .jobs)
        try container.encode(kept, forKey: .kept)
        try container.encodeIfPresent(passed, forKey: .passed)
        try container.encodeIfPresent(failed, forKey: .failed)
        try container.encodeIfPresent(errors, forKey: .errors)
    }
}

/// One run of one case of a run: the script, its data row, its target and which repetition.
public struct JobKey: Sendable, Hashable, Codable, CustomStringConvertible {
    public var file: String
    public var row: String?
    public var target: String?
    /// From 0.
    public var repetition: Int

    public init(file: String, row: String?, target: String?, repetition: Int) {
        self.file = file
        self.row = row
        self.target = target
        self.repetition = repetition
    }

    /// `target: file[row]`, and `#r` for repetition r + 1 of several.
    public var description: String {
        ScriptResult.label(file: file, row: row, target: target) + (repetition > 0 ? " #\(repetition + 1)" : "")
    }
}

/// A run of a case kept in the journal.
public struct KeptCase: Sendable {
    /// Its place in the run's order.
    public var position: Int
    public var key: JobKey
    /// What it gave.
    public var result: ScriptResult
}
