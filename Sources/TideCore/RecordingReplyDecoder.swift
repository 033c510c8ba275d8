/// Passes a reply's steps through from the backend's decoder and records them, for a
/// ``ReplyCache`` to keep (``CachedReply``).
final class RecordingReplyDecoder: ReplyDecoder {
    private let decoder: any ReplyDecoder
    /// What the reply gave so far.
    private(set) var recorded: CachedReply

    init(_ decoder: any ReplyDecoder) {
        self.decoder = decoder
        recorded = CachedReply(promptTokenCount: decoder.promptTokenCount)
    }

    var promptTokenCount: Int { decoder.promptTokenCount }
    var reusedPromptTokenCount: Int { decoder.reusedPromptTokenCount }
    var teacherForcing: TeacherForcing? { decoder.teacherForcing }
    var drafting: DraftStatistics? { decoder.drafting }
    var steering: BudgetSteering? { decoder.steering }
    var lastLogprob: TokenLogprob? { decoder.lastLogprob }

    func nextToken(adjustingLogits: ((any LogitsView) throws -> Void)?) async throws -> DecodedToken {
        let token = try await decoder.nextToken(adjustingLogits: adjustingLogits)
        recorded.steps.append(.next(token, logprob: decoder.lastLogprob))
        return token
    }

    func close() { decoder.close() }

    func keepRewindPoints() throws { try decoder.keepRewindPoints() }

    func rewind(to position: Int) throws {
        try decoder.rewind(to: position)
        recorded.steps.append(.rewind(to: position))
    }

    func forgetRewindPoints(before position: Int) throws { try decoder.forgetRewindPoints(before: position) }

    func scorePrompt(top: Int) async throws -> PromptLogprobs {
        let scored = try await decoder.scorePrompt(top: top)
        recorded.promptLogprobs = scored
        return scored
    }

    func toolCalls() throws(ToolFailure) -> [ToolCall] {
        let calls = try decoder.toolCalls()
        recorded.toolCalls = calls
        return calls
    }
}
