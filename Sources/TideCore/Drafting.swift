/// How drafting went in one reply.
public struct DraftStatistics: Sendable, Hashable, Codable {
    /// Batched decodes that checked a draft.
    public var verifications = 0
    /// Tokens drafted.
    public var drafted = 0
    /// Drafted tokens the model chose too.
    public var accepted = 0

    /// Empty statistics.
    public init() {}

    /// The share of drafted tokens accepted.
    public var acceptanceRate: Double { drafted == 0 ? 0 : Double(accepted) / Double(drafted) }
    /// Tokens a verification yields: those accepted and the one sampled after them.
    public var tokensPerVerification: Double {
        verifications == 0 ? 0 : Double(accepted + verifications) / Double(verifications)
    }
}

/// Whether a backend drafts tokens to check in one decode (`--draft`, `/set draft`).
public enum DraftMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// The setting's name: `--draft`, `/set draft`.
    public static let settingName = "draft"

    /// Decode one token at a time.
    case off
    /// Draft from the context by prompt lookup (`PromptLookup` in TideLlama) where a check pays
    /// (`DraftPolicy`) and the backend's batches are exact, so the reply is the same as without
    /// (see ``GenerationParameters/draft``).
    case lookup
    /// Draft by prompt lookup whenever the context holds a draft, as long as the lookup allows,
    /// whatever a check costs, and where batches are not exact: for a machine whose checks cost
    /// next to nothing (a GPU), and for tests that must draft on any machine. Where batches are
    /// not exact, the reply may differ from one decoded without drafts at a near-tie.
    case always
}
