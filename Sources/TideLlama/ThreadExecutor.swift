import Foundation

/// A task executor backed by dedicated threads (one by default): every job enqueued runs on one
/// of them, in the order they were enqueued (with one thread, one after another).
final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    // `jobs` and `stopping` are only touched with `condition` locked.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopping = false

    /// `threads` threads named `name`; with `niceness` above 0 (on Linux), they yield the
    /// processor to the process's other threads when they compete for it.
    init(name: String, niceness: Int32 = 0, threads: Int = 1) {
        for _ in 0..<threads {
            let thread = Thread { [self] in
                #if os(Linux)
                // On Linux, `who` 0 is the calling thread alone.
                if niceness != 0 { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness) }
                #endif
                run()
            }
            thread.name = name
            thread.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Lets the threads end once the jobs already queued have run.
    func shutdown() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopping { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
