/// Gives a reply kept in a ``ReplyCache`` again, step by step, without the model: the reply loop
/// and its hooks run on it as on one generated. A hook that asks for something else than it asked
/// when the reply was made (a rewind elsewhere, a token more) cannot be answered from the record:
/// the step throws ``CachedReplyDiverged``.
final class ReplayedReplyDecoder: ReplyDecoder {
    private let recorded: CachedReply
    private var next = 0
    private(set) var lastLogprob: TokenLogprob?

    init(_ recorded: CachedReply) {
        self.recorded = recorded
    }

    var promptTokenCount: Int { recorded.promptTokenCount }
    var reusedPromptTokenCount: Int { recorded.promptTokenCount }
    var teacherForcing: TeacherForcing? { recorded.teacherForcing }

    func nextToken(adjustingLogits: ((any LogitsView) throws -> Void)?) async throws -> DecodedToken {
        guard next < recorded.steps.count, case .next(let token, let logprob) = recorded.steps[next] else {
            throw CachedReplyDiverged(asked: "a token")
        }
        next += 1
        lastLogprob = logprob
        return token
    }

    func close() {}

    func keepRewindPoints() throws {}

    func rewind(to position: Int) throws {
        guard next < recorded.steps.count, recorded.steps[next] == .rewind(to: position) else {
            throw CachedReplyDiverged(asked: "a rewind to token \(position)")
        }
        next += 1
    }

    func forgetRewindPoints(before position: Int) throws {}

    func scorePrompt(top: Int) async throws -> PromptLogprobs {
        guard let scored = recorded.promptLogprobs else { throw CachedReplyDiverged(asked: "the prompt's scores") }
        return scored
    }

    func toolCalls() throws(ToolFailure) -> [ToolCall] { recorded.toolCalls }
}

/// A reply given again from the cache was asked for what it did not do when it was made: a plugin
/// decided otherwise than it did then.
public struct CachedReplyDiverged: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was asked.
    public let asked: String

    /// The error.
    public init(asked: String) {
        self.asked = asked
    }

    public var description: String {
        "a plugin asked for \(asked) where the cached reply has none: a plugin decided otherwise than when the reply was made "
            + "(it does not decide the same way twice); run again with --no-cache"
    }
}
