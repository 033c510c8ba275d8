/// What a backend gave for one reply, step by step: enough to give the reply again without the
/// model (``ReplyCache``). The hooks run on it as on a generated reply, so what they keep between
/// turns is the same either way.
public struct CachedReply: Sendable, Hashable, Codable {
    /// One thing the reply loop asked of the decoder, and what it got.
    public enum Step: Sendable, Hashable, Codable {
        /// A step of ``ReplyDecoder/nextToken(adjustingLogits:)``, with the token's
        /// log-probability when the reply asked for them.
        case next(DecodedToken, logprob: TokenLogprob?)
        /// A hook took back the reply from this position on (``ReplyDecoder/rewind(to:)``).
        case rewind(to: Int)
    }

    /// Tokens in the rendered prompt.
    public var promptTokenCount: Int
    /// The prompt's tokens scored, when the reply asked for them.
    public var promptLogprobs: PromptLogprobs?
    /// The steps, in order.
    public var steps: [Step] = []
    /// The tool calls the backend gave as data (``ChatBackend/offersToolsItself``).
    public var toolCalls: [ToolCall] = []
    /// How far the recording held, for a reply checked by teacher forcing.
    public var teacherForcing: TeacherForcing?
    /// How long the reply took to make, in seconds: what giving it again saves.
    public var seconds: Double = 0

    /// A reply with no steps yet.
    public init(promptTokenCount: Int) {
        self.promptTokenCount = promptTokenCount
    }
}
