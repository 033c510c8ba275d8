import TideCore

/// Where a reply being teacher-forced stands: the recorded tokens, the reply position whose token
/// is chosen next, and the first position at which the model chose otherwise.
///
/// The decoders feed the model the recorded tokens a chunk at a time, with scores at every
/// position, tell the sampler what the recording expects (``expectation(tolerance:)``), and ask
/// the forcer, after each choice, whether the recording still holds. For the reply to be exactly
/// the one generating gives, the scores must be the very numbers a decode of one token gives, and
/// the cache must end as generating leaves it; see ``chunkSize`` and ``generatedCacheLength``.
/// Where they are not (another build's recording, a backend whose batches round otherwise), the
/// tolerance confirms the recorded tokens that are near-ties.
///
/// A recording is text, and the tokenizer does not always spell it as the model did (compact
/// JSON is one case): where the model chooses a token that spells the recording's next bytes
/// otherwise, the recording still holds, and the rest of it is tokenized again after that token
/// (``check(_:nearTie:)``); the recorded tokens already in the cache leave it (``takeCut()``).
struct TeacherForcer {
    /// The recorded reply's tokens: the recording as the tokenizer spells it, and as the model
    /// spelled it where that differs.
    private(set) var tokens: [Int32]
    /// The bytes the tokens spell, and where each token's bytes start among them (one entry
    /// more than there are tokens: the end).
    private var bytes: [UInt8] = []
    private var offsets: [Int] = [0]
    private let model: LlamaModel
    /// Where the cache must be cut, in reply tokens, before the next decode: after the model
    /// spelled the recording with other tokens than those evaluated.
    private var cut: Int?
    /// The reply position whose token is chosen next.
    private(set) var position = 0
    /// Recorded tokens in the cache: the scores of positions up to this one are computed.
    private(set) var evaluated = 0
    /// Where the model first chose otherwise: from there the reply is generated, unless a rewind
    /// takes it back to a position before.
    private(set) var divergence: Int?
    /// The positions whose recorded token the sampler chose only within the tolerance, with the
    /// margin each needed.
    private var nearTies: [(position: Int, margin: Float)] = []
    /// The first position whose scores the last chunk's decode gave.
    private var chunkStart = 1
    /// Reply tokens that generating would have put in the cache by now. Generating evaluates a
    /// token when the next position is asked for (so never the last one, which may be an end or
    /// past a stop), and the next turn's prompt is evaluated from there: a forced reply leaves
    /// the cache at the same length, so that the next prompt is decoded in the same batches.
    private(set) var generatedCacheLength = 0

    /// The most recorded tokens evaluated in one decode. llama.cpp's CPU flash attention
    /// computes a batch of 64 queries or more with a tiled kernel that rounds differently;
    /// below that each query is computed exactly as in a decode of one token, so the scores of
    /// a chunk are bit for bit those generating sees (measured on SmolLM2: a chunk of 63 gives
    /// the same greedy tokens as generating, one of 64 differs within 20 tokens).
    static let chunkSize = 63

    /// Forcing `recorded`, as `model` tokenizes it.
    init(recorded: String, model: LlamaModel) throws(LlamaError) {
        self.model = model
        tokens = []
        append(try model.continuationTokens(utf8: Array(recorded.utf8)[...]))
    }

    /// Appends `added` to the tokens, with their bytes.
    private mutating func append(_ added: [Int32]) {
        for token in added {
            tokens.append(token)
            bytes += model.tokenBytes(token)
            offsets.append(bytes.count)
        }
    }

    /// Whether the recording still holds, so the next position's token is forced.
    var isForcing: Bool { divergence == nil }

    /// Starts the step at ``position``; `false` when generating could not, for want of room to
    /// evaluate the token before it in a context of `contextSize` holding `promptLength`
    /// prompt tokens (the reply then ends as the context is full).
    mutating func startStep(promptLength: Int, contextSize: Int) -> Bool {
        guard position == 0 || promptLength + position - 1 < contextSize else { return false }
        generatedCacheLength = position
        return true
    }

    /// Whether the scores of ``position`` still need a decode: those of position 0 come from the
    /// prompt, those of position `p` from recorded token `p - 1`.
    var needsScores: Bool { isForcing && position > 0 && position > evaluated }

    /// The recorded tokens to decode next, for the scores of the positions from ``position`` on,
    /// at most `limit` of them; they are then in the cache.
    mutating func nextChunk(limit: Int) -> ArraySlice<Int32> {
        let end = min(evaluated + min(limit, Self.chunkSize), tokens.count)
        chunkStart = evaluated + 1
        defer { evaluated = end }
        return tokens[evaluated..<end]
    }

    /// The index of ``position``'s scores among those of the last chunk's decode.
    var indexInChunk: Int { position - chunkStart }

    /// What the sampler is to expect at ``position`` while the recording holds: the recorded
    /// token, or the model's end where the recording ended.
    func expectation(tolerance: Double) -> ToleranceChoice.Expectation? {
        guard isForcing else { return nil }
        let start = offsets[position]
        return ToleranceChoice.Expectation(token: position < tokens.count ? tokens[position] : nil, tolerance: tolerance,
                                        upcoming: bytes[start..<min(bytes.count, start + Self.upcomingBytes)])
    }

    /// How many of the recording's next bytes an expectation carries: more than any token spells.
    static let upcomingBytes = 256

    /// Whether `spelled`, a token's bytes, begins the recording's bytes from ``position`` on.
    private func spellsRecording(_ spelled: [UInt8]) -> Bool {
        !spelled.isEmpty && bytes[offsets[position]...].starts(with: spelled)
    }

    /// The model spelled the recording at ``position`` with `token` (its bytes `spelled`) instead
    /// of the recorded token: the rest of the recording is tokenized again after it, and the
    /// recorded tokens evaluated from here on are to leave the cache.
    private mutating func respell(with token: Int32, spelling spelled: [UInt8]) {
        let rest = bytes[(offsets[position] + spelled.count)...]
        let tail = (try? model.continuationTokens(utf8: rest)) ?? []
        tokens.removeSubrange(position...)
        bytes.removeSubrange(offsets[position]...)
        offsets.removeSubrange((position + 1)...)
        append([token] + tail)
        if evaluated > position {
            evaluated = position
            cut = position
        }
    }

    /// Where the cache must be cut (in reply tokens) before the next decode, once: after the
    /// model spelled the recording with other tokens than those already evaluated.
    mutating func takeCut() -> Int? {
        defer { cut = nil }
        return cut
    }

    /// Records the choice at ``position``, which the sampler made within the tolerance when
    /// `nearTie` gives a margin: `true` when it is the recorded one (a recorded token, or the end
    /// where the recording ended), `false` at the first that is not.
    mutating func check(_ step: DecodedToken, nearTie: Float?) -> Bool {
        guard isForcing else { return false }
        switch step {
        case .token(let id, _) where position < tokens.count && id == tokens[position]:
            if let nearTie { nearTies.append((position, nearTie)) }
            position += 1
            return true
        case .token(let id?, let spelled) where position < tokens.count && spellsRecording(spelled):
            respell(with: id, spelling: spelled)
            position += 1
            return true
        case .endOfGeneration where position == tokens.count:
            if let nearTie { nearTies.append((position, nearTie)) }
            return true
        default:
            divergence = position
            return false
        }
    }

    /// A rewind to reply position `target`, whose recorded tokens have left the cache: when the
    /// reply agreed with the recording up to there, forcing goes on from there (a plugin that
    /// took back a phrase the recording does not hold, say); else the reply is still generated.
    mutating func rewind(to target: Int) {
        guard target <= divergence ?? position else { return }
        nearTies.removeAll { $0.position >= target }
        cut = nil
        divergence = nil
        position = target
        evaluated = target
    }

    /// How far the recording held.
    var outcome: TeacherForcing {
        divergence.map { .regenerated(from: $0) }
            ?? .confirmed(tokens: position, nearTies: nearTies.reduce(into: NearTies()) { $0.add($1.margin) })
    }
}
