/// How `tide run` schedules its replays: groups (a case on a target) of `repetitions` runs each,
/// at most `concurrency` runs at once, each group's runs handed over in the order of the groups,
/// as soon as it and every group before it are done.
public enum ReplayQueue {
    /// Replays `groups` groups of `repetitions` runs (`replay(group, run)`), at most `concurrency`
    /// at once; `progress` hears how many runs are done after each, and `finished` gets each
    /// group's runs, in run order, in the order of the groups.
    public static func run(groups: Int, repetitions: Int, concurrency: Int,
                           replay: @escaping @Sendable (_ group: Int, _ run: Int) async -> ScriptResult,
                           progress: (_ done: Int) -> Void, finished: ([ScriptResult]) -> Void) async {
        let jobs = groups * repetitions
        await withTaskGroup(of: (Int, Int, ScriptResult).self) { group in
            var started = 0
            func startNext() {
                guard started < jobs else { return }
                let (index, run) = (started / repetitions, started % repetitions)
                started += 1
                group.addTask { (index, run, await replay(index, run)) }
            }
            for _ in 0..<min(concurrency, jobs) { startNext() }
            var done = 0
            var waiting: [Int: [(run: Int, result: ScriptResult)]] = [:]
            var next = 0
            for await (index, run, result) in group {
                startNext()
                done += 1
                waiting[index, default: []].append((run, result))
                while waiting[next]?.count == repetitions, let runs = waiting.removeValue(forKey: next) {
                    finished(runs.sorted { $0.run < $1.run }.map(\.result))
                    next += 1
                }
                progress(done)
            }
        }
    }
}
