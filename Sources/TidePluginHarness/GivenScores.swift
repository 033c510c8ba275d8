import Synchronization
import TideCore

/// One step's scores as a plugin test gives them to `on_logits` (`plugin:logits{scores = …}`):
/// the candidates named, best first; what the plugin does to them is recorded, not applied.
final class GivenScores: LogitsView, Sendable {
    private let candidates: [TokenCandidate]
    let vocabularySize: Int
    private let changes = Mutex<(biases: [Int32: Float], bans: Set<Int32>)>(([:], []))

    /// The scores of `candidates`, in a vocabulary of `vocabularySize` tokens.
    init(_ candidates: [TokenCandidate], vocabularySize: Int) {
        self.candidates = candidates.sorted { ($0.logit, $1.id) > ($1.logit, $0.id) }
        self.vocabularySize = vocabularySize
    }

    func top(_ k: Int) -> [TokenCandidate] { Array(candidates.prefix(max(k, 0))) }

    func bias(_ token: Int32, by delta: Float) {
        changes.withLock { $0.biases[token, default: 0] += delta }
    }

    func ban(_ token: Int32) {
        _ = changes.withLock { $0.bans.insert(token) }
    }

    /// The biases added, summed by token, and the tokens banned.
    var recorded: (biases: [Int32: Float], bans: Set<Int32>) { changes.withLock { $0 } }
}
