/// Why a reply ended.
public enum StopReason: Sendable, Hashable, CustomStringConvertible {
    /// The model produced an end-of-generation token (or one of the model's extra EOS strings).
    case endOfGeneration
    /// The reply reached `GenerationParameters.maxTokens`.
    case maxTokens
    /// The reply produced one of the user's stop strings (which is not shown).
    case stopString(String)
    /// A hook asked to stop: its name and its reason.
    case hook(name: String, reason: String)
    /// A pre-prompt hook answered in the model's place.
    case answeredByHook(name: String)
    /// The consumer stopped listening (Ctrl-C, a closed connection).
    case cancelled
    /// The context window filled up before the reply ended.
    case contextFull
    /// Logits hooks banned every token, so none could be sampled.
    case everyTokenBanned
    /// A plugin asked for more rewinds than `GenerationParameters.maxRewinds` allows; the reply
    /// ends where the last rewind took it back to.
    case rewindLimit
    /// The reply's format allowed only tokens that hooks or rewinds had banned, so none could be
    /// sampled; the reply is incomplete.
    case formatBlocked

    public var description: String {
        switch self {
        case .endOfGeneration: "eos"
        case .maxTokens: "max-tokens"
        case .stopString(let string): "stop-string: \(string.debugDescription)"
        case .hook(let name, let reason): reason.isEmpty ? "plugin:\(name)" : "plugin:\(name): \(reason)"
        case .answeredByHook(let name): "answered:\(name)"
        case .cancelled: "cancelled"
        case .contextFull: "context-full"
        case .everyTokenBanned: "every-token-banned"
        case .rewindLimit: "rewind-limit"
        case .formatBlocked: "format-blocked"
        }
    }
}

extension StopReason {
    /// Why a reply ended at a step that gave no token.
    init(ending step: DecodedToken) {
        self = switch step {
        case .endOfGeneration: .endOfGeneration
        case .everyTokenBanned: .everyTokenBanned
        case .formatBlocked: .formatBlocked
        default: .contextFull
        }
    }
}
