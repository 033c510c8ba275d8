import Foundation
import Synchronization
import TideCache
import TideCore
import TideRunner

/// The cases `tide run` keeps whole in its cache (docs/conversations.md, "What was computed is not
/// computed again"): a case whose identity holds all that decided it (``ScriptResult/determined``)
/// is given back to a later run of the same file, row and target with the same identity and
/// number of sequences, before a context is made or an MCP server started for it.
final class KeptCases: Sendable {
    let store: CacheStore
    /// How many sequences share a batch, which may change a reply's last bits on some machines.
    let sequences: Int
    /// How many cases were given back.
    private let given = Atomic<Int>(0)

    /// The cases kept in `store` for runs of `sequences` sequences.
    init(store: CacheStore, sequences: Int) {
        self.store = store
        self.sequences = sequences
    }

    /// What the summary says of the cases given back, of `jobs` runs of cases; `nil` for none:
    /// `cases: 12 of 14 given back whole from the cache (no context made, no plugin run)`.
    func note(jobs: Int) -> String? {
        let given = given.load(ordering: .relaxed)
        return given == 0 ? nil : "cases: \(given) of \(jobs) given back whole from the cache (no context made, no plugin run)"
    }

    /// The result kept for the case at `file` (`row`, `target`) of `identity`, its replies marked
    /// as given from the cache; `nil` for none.
    func result(for identity: CaseIdentity, file: String, row: String?, target: String?) async -> ScriptResult? {
        guard var kept = await store.caseResult(for: key(identity, file: file, row: row, target: target), as: ScriptResult.self),
              kept.identity == identity else { return nil }
        for index in kept.replies.indices where kept.replies[index].statistics.cached == nil {
            let statistics = kept.replies[index].statistics
            kept.replies[index].statistics.cached = ReplyCacheHit(seconds: (statistics.timeToFirstToken ?? .zero).seconds
                                                                  + statistics.decodeDuration.seconds)
        }
        // The time it takes now.
        kept.seconds = 0
        given.add(1, ordering: .relaxed)
        return kept
    }

    /// Keeps `result`, the case's at `file` (`row`, `target`), when its identity determined it.
    func keep(_ result: ScriptResult, file: String, row: String?, target: String?) async {
        guard result.determined == true, let identity = result.identity else { return }
        await store.storeCaseResult(result, for: key(identity, file: file, row: row, target: target))
    }

    /// The key of a case's result: its identity, the sequences, where it comes from.
    private func key(_ identity: CaseIdentity, file: String, row: String?, target: String?) -> Data {
        Data(FileDigest.of([identity.script, identity.model, identity.plugins, identity.settings, "sequences \(sequences)",
                            file, row ?? "", target ?? ""]).utf8)
    }
}
