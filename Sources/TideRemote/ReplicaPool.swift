import Foundation
import Synchronization

/// Servers of one model (`--remote` given several times: llama-server, vLLM or `tide serve` on
/// several machines), over which replies are spread: each reply goes to the replica with the
/// fewest replies in flight, among those not left out. A replica whose reply failed in a way that
/// may pass (refused, reset, busy, failing, cut short) is left out for a while — a second, then
/// twice as long after each failure in a row, up to a minute — and tried again after; one that
/// answers is back at once. When every replica is left out, the one back soonest is tried.
///
/// One pool serves every backend on the same servers in a process (``shared(for:)``), so that
/// the scripts of a run share what they learn of the replicas.
public final class ReplicaPool: Sendable {
    /// The replicas' base URLs, as given.
    public let urls: [URL]
    private let replicas: Mutex<[Replica]>

    /// What the pool knows of one replica.
    struct Replica {
        var inFlight = 0
        /// Failures in a row, and until when it is left out.
        var failures = 0
        var outUntil: ContinuousClock.Instant?
        /// Replies sent to it, for telling ties apart and for reports.
        var sent = 0
    }

    /// The longest a failing replica is left out.
    static let longestLeftOut: Duration = .seconds(60)

    init(urls: [URL]) {
        precondition(!urls.isEmpty, "a pool has a replica")
        self.urls = urls
        replicas = Mutex(Array(repeating: Replica(), count: urls.count))
    }

    private static let pools = Mutex<[[URL]: ReplicaPool]>([:])

    /// The pool of `urls` in this process.
    public static func shared(for urls: [URL]) -> ReplicaPool {
        pools.withLock { pools in
            if let pool = pools[urls] { return pool }
            let pool = ReplicaPool(urls: urls)
            pools[urls] = pool
            return pool
        }
    }

    /// Takes a replica for a reply: the index to give back to ``release(_:failed:)``, and its URL.
    func acquire(now: ContinuousClock.Instant = .now) -> (index: Int, url: URL) {
        replicas.withLock { replicas in
            let available = replicas.indices.filter { replicas[$0].outUntil.map { $0 <= now } ?? true }
            let index = available.min { (replicas[$0].inFlight, replicas[$0].sent) < (replicas[$1].inFlight, replicas[$1].sent) }
                ?? replicas.indices.min { (replicas[$0].outUntil ?? now) < (replicas[$1].outUntil ?? now) }!
            replicas[index].inFlight += 1
            replicas[index].sent += 1
            return (index, urls[index])
        }
    }

    /// Gives a replica back after a reply: `failed` when it failed in a way that may pass, which
    /// leaves it out for a while.
    func release(_ index: Int, failed: Bool, now: ContinuousClock.Instant = .now) {
        replicas.withLock { replicas in
            replicas[index].inFlight -= 1
            if failed {
                replicas[index].failures += 1
                let wait = min(Duration.seconds(1) * Double(1 << min(replicas[index].failures - 1, 10)), Self.longestLeftOut)
                replicas[index].outUntil = now + wait
            } else {
                replicas[index].failures = 0
                replicas[index].outUntil = nil
            }
        }
    }

    /// The replies sent to each replica, in ``urls``' order.
    public var sent: [Int] { replicas.withLock { $0.map(\.sent) } }
}
