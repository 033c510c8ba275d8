import Testing
@testable import TideRunner

/// How `tide run` schedules its replays (``ReplayQueue``): however the runs finish, each group's
/// runs are handed over together, in run order, in the order of the groups, and no more than
/// the concurrency asked for run at once.
@Suite struct ReplayQueueTests {
    /// Counts the runs in progress and the most at once.
    actor Gauge {
        private(set) var running = 0
        private(set) var most = 0
        func start() {
            running += 1
            most = max(most, running)
        }
        func end() { running -= 1 }
    }

    @Test(arguments: [1, 3, 8])
    func groupsAreHandedOverInOrderWhateverOrderTheyFinishIn(concurrency: Int) async {
        let (groups, repetitions) = (5, 3)
        let gauge = Gauge()
        var handed: [[String]] = []
        var progress: [Int] = []
        await ReplayQueue.run(groups: groups, repetitions: repetitions, concurrency: concurrency) { group, run in
            await gauge.start()
            // Later jobs finish first where several run at once.
            try? await Task.sleep(for: .milliseconds(2 * (groups * repetitions - group * repetitions - run)))
            await gauge.end()
            return ScriptResult(file: "\(group).tide", name: "\(run)")
        } progress: { done in
            progress.append(done)
        } finished: { runs in
            handed.append(runs.map { "\($0.file)#\($0.name)" })
        }
        #expect(handed == (0..<groups).map { group in (0..<repetitions).map { "\(group).tide#\($0)" } })
        #expect(progress == Array(1...groups * repetitions))
        let (most, running) = (await gauge.most, await gauge.running)
        #expect(most <= concurrency && running == 0)
    }
}
