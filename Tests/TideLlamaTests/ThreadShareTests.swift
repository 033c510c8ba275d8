import Synchronization
import Testing
@testable import TideLlama

/// How many threads a decode takes on a machine that other work shares (no model needed: the
/// readings of the machine are given).
@Suite struct ThreadShareTests {
    /// The readings of other processes' runnable tasks a share is given, one per decode (0 once
    /// they run out).
    final class Readings: Sendable {
        private let left: Mutex<[Int?]>
        init(_ values: [Int?]) { left = Mutex(values) }
        func next() -> Int? { left.withLock { $0.isEmpty ? 0 : $0.removeFirst() } }
        var remaining: Int { left.withLock { $0.count } }
    }

    /// A share of at most 2 threads on 2 cores, given `readings`.
    func makeShare(readings values: [Int?], followsLoad: Bool = true) -> (share: ThreadShare, readings: Readings) {
        let readings = Readings(values)
        return (ThreadShare(most: 2, cores: 2, followsLoad: { followsLoad }, readOthers: { readings.next() }), readings)
    }

    @Test func anIdleMachineGivesEveryThread() {
        var (share, _) = makeShare(readings: [0, 0, 0])
        #expect((0..<3).map { _ in share.next() } == [2, 2, 2])
    }

    @Test func aBusyMachineAtTheFirstDecodeGivesFewerAtOnce() {
        var (share, _) = makeShare(readings: [1, 3])
        #expect(share.next() == 1)
        #expect(share.next() == 1, "never fewer than one")
    }

    @Test func oneBusyReadingIsAMomentTwoInARowAreWork() {
        var (share, _) = makeShare(readings: [0, 1, 0, 1, 1, 1])
        #expect((0..<6).map { _ in share.next() } == [2, 2, 2, 2, 1, 1])
    }

    @Test func moreThreadsComeBackOnlyAfterTheMachineHasBeenFreeAWhile() {
        var (share, _) = makeShare(readings: [1, 0, 0, 0])
        let start = ContinuousClock.now
        #expect(share.next(now: start) == 1)
        #expect(share.next(now: start + .milliseconds(10)) == 1)
        #expect(share.next(now: start + .milliseconds(60)) == 1)
        #expect(share.next(now: start + .milliseconds(10) + ThreadShare.raiseAfter) == 2)
    }

    @Test func aBusyReadingRestartsTheWaitForMoreThreads() {
        var (share, _) = makeShare(readings: [1, 0, 1, 0, 0])
        let start = ContinuousClock.now
        #expect(share.next(now: start) == 1)
        #expect(share.next(now: start) == 1)
        #expect(share.next(now: start + ThreadShare.raiseAfter) == 1)
        #expect(share.next(now: start + ThreadShare.raiseAfter * 2) == 1)
        #expect(share.next(now: start + ThreadShare.raiseAfter * 3) == 2)
    }

    @Test func aCountAskedForOrAModelThatComputesOtherwiseOnFewerThreadsKeepsItsThreads() {
        var (share, readings) = makeShare(readings: [2, 2, 2], followsLoad: false)
        #expect((0..<3).map { _ in share.next() } == [2, 2, 2])
        #expect(readings.remaining == 3, "the machine is not even read")
        var single = ThreadShare(most: 1, cores: 2, followsLoad: { true }, readOthers: { 0 })
        #expect(single.next() == 1)
    }

    @Test func withoutReadingsTheCountStaysAsItWas() {
        var (share, _) = makeShare(readings: [nil, nil])
        #expect(share.next() == 2)
        #expect(share.next() == 2)
    }

    @Test func theRunnableCountIsReadFromLoadavg() {
        #expect(ThreadShare.parseRunnable(Array("0.52 0.58 0.59 3/456 12345\n".utf8)) == 3)
        #expect(ThreadShare.parseRunnable(Array("0.00 0.01 0.05 12/1021 99\n".utf8)) == 12)
        #expect(ThreadShare.parseRunnable(Array("0.52 0.58".utf8)) == nil)
        #expect(ThreadShare.parseRunnable(Array("a b c d e".utf8)) == nil)
        #if os(Linux)
        let others = ThreadShare.runnableElsewhere()
        #expect(others != nil && others! >= 0, "this machine's /proc/loadavg reads")
        #endif
    }
}
