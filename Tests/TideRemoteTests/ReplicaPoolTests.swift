import Foundation
import Testing
@testable import TideRemote

/// Replies spread over replicas by what each has in flight; a replica that fails is left out for
/// a while that grows with its failures in a row, and is back once it answers.
@Suite struct ReplicaPoolTests {
    let urls = (1...3).map { URL(string: "http://10.0.0.\($0):8080")! }

    @Test func repliesGoWhereFewestAreInFlight() {
        let pool = ReplicaPool(urls: urls)
        let first = (0..<3).map { _ in pool.acquire().index }
        #expect(Set(first) == [0, 1, 2], "one each before any has two")
        pool.release(1, failed: false)
        #expect(pool.acquire().index == 1, "the one with none in flight")
        pool.release(0, failed: false)
        pool.release(2, failed: false)
        // In flight: none on 0 and 2, one on 1; sent 1, 2, 1: a tie, the first taken.
        #expect(pool.acquire().index == 0)
        #expect(pool.sent == [2, 2, 1])
    }

    @Test func aFailingReplicaIsLeftOutForAWhileThatGrows() {
        let pool = ReplicaPool(urls: Array(urls.prefix(2)))
        let start = ContinuousClock.now
        let (failing, _) = pool.acquire(now: start)
        pool.release(failing, failed: true, now: start)
        let other = 1 - failing
        for _ in 0..<4 {
            let (index, _) = pool.acquire(now: start + .milliseconds(500))
            #expect(index == other, "left out for a second")
            pool.release(index, failed: false, now: start + .milliseconds(500))
        }
        // Back after its second, tried again: failing once more leaves it out for two.
        let (again, _) = pool.acquire(now: start + .milliseconds(1500))
        #expect(again == failing)
        pool.release(again, failed: true, now: start + .milliseconds(1500))
        #expect(pool.acquire(now: start + .milliseconds(3000)).index == other)
        pool.release(other, failed: false, now: start + .milliseconds(3000))
        let (back, _) = pool.acquire(now: start + .milliseconds(3600))
        #expect(back == failing, "two seconds after its second failure")
        pool.release(back, failed: false, now: start + .milliseconds(3600))
        // Answering forgets its failures: failing again leaves it out for one second, not four.
        let (next, _) = pool.acquire(now: start + .seconds(4))
        #expect(next == failing, "sent fewer")
        pool.release(next, failed: true, now: start + .seconds(4))
        #expect(pool.acquire(now: start + .milliseconds(4500)).index == other)
        #expect(pool.acquire(now: start + .milliseconds(5100)).index == failing)
    }

    @Test func whenEveryReplicaIsLeftOutTheOneBackSoonestIsTried() {
        let pool = ReplicaPool(urls: Array(urls.prefix(2)))
        let start = ContinuousClock.now
        pool.release(pool.acquire(now: start).index, failed: true, now: start)  // replica 0: out for 1 s
        let (second, _) = pool.acquire(now: start)
        #expect(second == 1)
        pool.release(second, failed: true, now: start)
        pool.release(pool.acquire(now: start + .milliseconds(1100)).index, failed: true, now: start + .milliseconds(1100))  // 0 again: out 2 s
        // Replica 0 is out until 3.1 s, replica 1 until 1 s.
        #expect(pool.acquire(now: start + .milliseconds(900)).index == 1)
        #expect(ReplicaPool.shared(for: urls) === ReplicaPool.shared(for: urls), "one pool per set of servers in a process")
    }
}
