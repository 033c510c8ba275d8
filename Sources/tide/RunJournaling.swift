import Foundation
import Synchronization
import TideJournal
import TideRunner

/// `tide run`'s journal at work: the run begun (or resumed) in the journal, each run of a case
/// kept as it finishes, the runs kept before given back instead of replaying them when nothing
/// that decides them changed, and the run marked finished at its end (docs/conversations.md,
/// "Runs that last").
final class RunJournaling: Sendable {
    let journal: RunJournal
    let run: JournaledRun
    /// The runs of cases kept before, by key (on resuming).
    private let kept: [JobKey: ScriptResult]
    private let tally = Mutex(Tally())
    private let stopped = Mutex<JournalError?>(nil)

    /// What resuming did with the cases kept before.
    struct Tally {
        /// Runs of cases given back from before.
        var reused: Set<JobKey> = []
        /// Runs of cases run again, by why.
        var rerun: [String: [JobKey]] = [:]
    }

    private init(journal: RunJournal, run: JournaledRun, kept: [JobKey: ScriptResult]) {
        self.journal = journal
        self.run = run
        self.kept = kept
    }

    /// The journal of a run in `folder` with `arguments` (`--resume` and its run left out) of
    /// `jobs` runs of cases: a new run, or with `resume`, the run it names (`nil`: the newest
    /// unfinished run of the same arguments here). A journal that cannot be opened leaves a new
    /// run unjournaled, with a warning, and stops a resumed one.
    static func start(resume: Bool, run id: Int64?, folder: String, arguments: [String], command: String, targets: [String],
                      repetitions: Int, jobs: Int) throws(JournalError) -> RunJournaling? {
        let journal: RunJournal
        do {
            journal = try RunJournal(path: RunJournal.standardLocation())
        } catch {
            if resume { throw error }
            Terminal.warn("warning: this run is not journaled (\(error)); it cannot be resumed if it stops")
            return nil
        }
        guard resume else {
            return RunJournaling(journal: journal, run: try journal.begin(folder: folder, arguments: arguments, command: command,
                                                                          targets: targets, repetitions: repetitions, jobs: jobs),
                                 kept: [:])
        }
        let found: JournaledRun
        if let id {
            guard let run = try journal.run(id) else {
                throw JournalError("there is no run \(id) in the journal (tide runs list shows the runs kept)")
            }
            guard run.folder == folder else {
                throw JournalError("run \(id) ran in \(run.folder): resume it from there (cd \(RunCommand.shellQuoted(run.folder))), "
                                   + "or leave --resume out to start a new run here")
            }
            guard run.arguments == arguments else {
                throw JournalError("run \(id) was `\(run.command)`, not `\(command)`: resume it with its own arguments "
                                   + "(\(run.resumeCommand)), "
                                   + "or leave --resume out to start a new run")
            }
            found = run
        } else {
            guard let run = try journal.lastUnfinishedRun(folder: folder, arguments: arguments) else {
                throw JournalError("no unfinished run of these arguments in this folder (tide runs list shows the runs kept); "
                                   + "leave --resume out to start a new run")
            }
            found = run
        }
        let (cases, damaged) = try journal.keptCases(of: found.id)
        if !damaged.isEmpty {
            Terminal.warn("warning: \(damaged.count) kept case\(damaged.count == 1 ? " is" : "s are") damaged in the journal "
                          + "(\(damaged[0])\(damaged.count > 1 ? ", …" : "")) and will run again")
        }
        return RunJournaling(journal: journal, run: found, kept: Dictionary(cases.map { ($0.key, $0.result) }) { $1 })
    }

    /// What to give for the run of a case under `key` once its identity is known: the run kept
    /// before when it ran to its end and nothing that decides it changed; else `nil`, counting why.
    func reuse(_ key: JobKey) -> @Sendable (CaseIdentity) async -> ScriptResult? {
        let kept = kept[key]
        return { [self] identity in
            guard let kept else { return nil }
            let why: String
            if kept.failure != nil {
                why = "it could not run"
            } else if let before = kept.identity {
                let changes = identity.changes(since: before)
                guard !changes.isEmpty else {
                    tally.withLock { _ = $0.reused.insert(key) }
                    return kept
                }
                why = changes.joined(separator: ", ")
            } else {
                why = "it was not identified"
            }
            tally.withLock { $0.rerun[why, default: []].append(key) }
            return nil
        }
    }

    /// Keeps the run of a case; one given back from before is kept already. When it cannot be
    /// kept, the run stops (``stop``), saying why and how to go on once that is mended; what was
    /// kept stays.
    func record(_ result: ScriptResult, as key: JobKey, position: Int) {
        guard !tally.withLock({ $0.reused.contains(key) }), stop == nil else { return }
        do {
            try journal.record(result, as: key, position: position, in: run.id)
        } catch {
            guard stopped.withLock({ stopped in
                defer { stopped = stopped ?? error }
                return stopped == nil
            }) else { return }
            Terminal.warn("\nError: \(error)\nthe run stops: the cases that finished are kept in run \(run.id); "
                          + "once that is mended, go on with\n  " + resumeHint)
        }
    }

    /// Why the run stopped (the journal could not be written), if it did.
    var stop: JournalError? { stopped.withLock { $0 } }

    /// The result of a run of a case not replayed because the run stopped; `nil` while it goes on.
    func skipped(_ key: JobKey) -> ScriptResult? {
        guard let stop else { return nil }
        var skipped = ScriptResult(file: key.file, failure: "\(key.file): not replayed, the run stopped: \(stop)")
        skipped.row = key.row
        skipped.target = key.target
        return skipped
    }

    /// Marks the run finished with its counts, unless it stopped (it stays unfinished, to be
    /// resumed); false when it stopped or cannot be marked (said).
    func finish(passed: Int, failed: Int, errors: Int) -> Bool {
        guard stop == nil else { return false }
        do {
            try journal.finish(run.id, passed: passed, failed: failed, errors: errors)
            return true
        } catch {
            Terminal.warn("Error: \(error)")
            return false
        }
    }

    /// Ctrl-C, while it lives, says where the run is kept and how to go on, then ends Tide.
    func sayingHowToResumeOnInterrupt() -> InterruptHandler {
        InterruptHandler.noting { [run, resumeHint] in
            "\ninterrupted: the cases that finished are kept in run \(run.id); go on with\n  " + resumeHint
        }
    }

    /// What resuming did, said after the summary: `resumed run 12: 40 of 100 runs of cases kept
    /// from before, 3 run again (its script changed: a.tide, b.tide; it could not run: c.tide), 57
    /// run for the first time`; `nil` for a new run.
    func resumption(jobs: Int) -> String? {
        guard !kept.isEmpty || run.kept > 0 else { return nil }
        let tally = tally.withLock { $0 }
        let again = tally.rerun.values.reduce(0) { $0 + $1.count }
        let reasons = tally.rerun.sorted { ($0.value.count, $1.key) > ($1.value.count, $0.key) }.map { why, keys in
            "\(why): " + keys.prefix(3).map(\.description).joined(separator: ", ") + (keys.count > 3 ? " and \(keys.count - 3) more" : "")
        }.joined(separator: "; ")
        return "resumed run \(run.id): \(tally.reused.count) of \(jobs) runs of cases kept from before"
            + (again > 0 ? ", \(again) run again (\(reasons))" : "") + ", \(jobs - tally.reused.count - again) run for the first time"
    }

    /// How to go on with this run after it stopped.
    var resumeHint: String { run.resumeCommand }
}

extension JournaledRun {
    /// The command that goes on with this run (in its folder): `tide run --resume 12 -q Conversations/`.
    var resumeCommand: String {
        "tide run --resume \(id) " + arguments.map(RunCommand.shellQuoted).joined(separator: " ")
    }
}
