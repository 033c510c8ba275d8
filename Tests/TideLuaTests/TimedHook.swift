import Synchronization
import TideCore

/// Passes every call on to `hook` and records how long the longest one took.
final class TimedHook: ChatHook {
    let hook: any ChatHook
    private let longest = Mutex<Duration>(.zero)

    init(_ hook: any ChatHook) { self.hook = hook }

    var name: String { hook.name }
    var points: Set<HookPoint> { hook.points }
    /// The longest call so far.
    var longestCall: Duration { longest.withLock { $0 } }

    private func timed<Result>(_ body: () throws -> Result) rethrows -> Result {
        let started = ContinuousClock.now
        defer {
            let elapsed = ContinuousClock.now - started
            longest.withLock { $0 = max($0, elapsed) }
        }
        return try body()
    }

    func onPrompt(_ prompt: inout PromptContext) throws -> PromptDecision { try timed { try hook.onPrompt(&prompt) } }
    func onLogits(_ logits: any LogitsView, reply: ReplyProgress) throws { try timed { try hook.onLogits(logits, reply: reply) } }
    var rewindWindow: Int { get throws { try hook.rewindWindow } }
    func shouldStop(_ reply: ReplyProgress) throws -> StopDecision { try timed { try hook.shouldStop(reply) } }
    func onToken(_ token: TokenInfo, reply: ReplyProgress) throws -> TokenDecision { try timed { try hook.onToken(token, reply: reply) } }
    func onReply(_ reply: inout FinishedReply) throws { try timed { try hook.onReply(&reply) } }
    func attach(to backend: any ChatBackend) { hook.attach(to: backend) }
}
