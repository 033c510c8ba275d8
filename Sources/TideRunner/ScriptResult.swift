import Foundation
import TideCore
import TideScript

/// What replaying one script gave.
public struct ScriptResult: Sendable, Codable {
    /// The script file.
    public var file: String
    /// The script's `@name`, else its file name without extension.
    public var name: String
    /// The model it ran on (its `@model`, else the runner's), once the script has been checked.
    public var model: String?
    /// Every generated reply, in order.
    public var replies: [ReplyResult] = []
    /// Why the script could not be replayed to its end, if it could not.
    public var failure: String?
    /// The settings that would get past the failure, for the front end to name.
    public var remedies: [Remedy] = []
    /// Whether the failure may pass when the case runs again (a server's: ``Transience``).
    public var transience: Transience?
    /// How many times the case was run again after such a failure (`tide run --retries`).
    public var retries = 0
    /// The script with its replies filled in (up to the failure, if any); `nil` if it did not parse.
    public var transcript: ConversationScript?
    /// The data row it ran with (``DataRow/name``), when it was fed by data.
    public var row: String?
    /// Where this run's trace of the case's hook calls is (`--trace-hooks`: a file, or
    /// `stderr`), which a failed check points to; `nil` when they were not traced (or the case
    /// was given back, and no plugin ran).
    public var trace: String?
    /// The target it ran on (``RunTarget/label``), in a run of several.
    public var target: String?
    /// How long it took, in seconds.
    public var seconds: Double = 0
    /// What decided it (``CaseIdentity``), once the script was prepared and its model found;
    /// `nil` when it failed before.
    public var identity: CaseIdentity?
    /// Whether its identity holds all that decided it, so that it may stand for a later run of
    /// the same identity (a case given back whole from the cache): it ran to its end, every reply
    /// determined (``GenerationStatistics/determined``), no plugin failing, no MCP server's
    /// tools, no check of speed, no judge asked (verdicts taken from a confirmed recording are
    /// determined), and no Lua code that read the clock or random
    /// numbers (``OutsideReads``); `nil` when no reply cache was asked for.
    public var determined: Bool?

    /// A result with no replies yet; `name` defaults to the file name without its extension.
    public init(file: String, name: String? = nil, failure: String? = nil) {
        self.file = file
        self.name = name ?? URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        self.failure = failure
    }

    /// How reports name it: the file, its row in brackets (`capitals.tide[fr]`), after its
    /// target (`plain: capitals.tide`).
    public var label: String { ScriptResult.label(file: file, row: row, target: target) }

    /// `target: file[row]`, each part where there is one.
    public static func label(file: String, row: String?, target: String?) -> String {
        (target.map { "\($0): " } ?? "") + file + (row.map { "[\($0)]" } ?? "")
    }

    /// Expectations (and golden comparisons) that held.
    public var passed: Int { replies.reduce(0) { $0 + $1.expectations.count(where: \.passed) + ($1.golden?.matches == true ? 1 : 0) } }
    /// Expectations (and golden comparisons) that did not.
    public var failed: Int { replies.reduce(0) { $0 + $1.expectations.count(where: { !$0.passed }) + ($1.golden?.matches == false ? 1 : 0) } }
}

/// One generated reply and the checks on it.
public struct ReplyResult: Sendable, Codable {
    /// The line of the user turn it answers.
    public var line: Int
    /// The user's message.
    public var user: String
    /// The reply as shown (after plugins' filters): its answer, after its rounds of tool calls.
    public var text: String
    /// Its rounds of tool calls before the answer, as a transcript writes them.
    public var rounds: [ToolRound] = []
    /// A thinking model's reasoning before the reply; empty for none.
    public var reasoning = ""
    /// Why it ended, as `--stats` shows it.
    public var stopReason: String
    /// Its statistics.
    public var statistics: GenerationStatistics
    /// Each expectation's outcome, in script order.
    public var expectations: [ExpectationResult]
    /// Plugin errors during the reply (each plugin is then disabled).
    public var hookFailures: [String]
    /// What the plugins did to the reply that a failed check may come from (``Replay``): the
    /// stop one made and after how many tokens, an answer in the model's place, text taken
    /// back; `nil` when they did none of it.
    public var pluginNote: String?
    /// Why the reply is not a complete reply in its format (cut short, or invalid), if it had one.
    public var formatProblem: String?
    /// The comparison with the recorded golden reply, under `--check`.
    public var golden: GoldenComparison?
    /// The reply recorded for the turn (in the transcript, or the golden transcript), if any.
    public var recorded: String?
    /// How the reply recorded for the turn (in the transcript, or the golden transcript) was
    /// checked: confirmed by teacher forcing, or regenerated and from where; `nil` when none was.
    public var teacherForcing: TeacherForcing?
    /// The parameters it was generated with (the script's directives up to it applied, and the
    /// seed of its run under `--repeat`).
    public var parameters = GenerationParameters()
    /// The log-probabilities of the reply's tokens, when it was made with them
    /// (``TideCore/ReplySummary/logprobs``); empty otherwise.
    public var logprobs: [TokenLogprob] = []
    /// The judge's verdicts on it, one a rubric of its `expect: judge` checks, as a transcript
    /// records them.
    public var verdicts: [RecordedVerdict] = []
}

/// A reply compared with the golden transcript's reply for the same turn.
public struct GoldenComparison: Sendable, Hashable, Codable {
    /// The recorded reply (`nil` when the golden file has no reply for this turn).
    public var recorded: String?
    /// Whether the new reply is the same text.
    public var matches: Bool
    /// A line diff of the two, when they differ.
    public var difference: String
}
