/// What became of a recorded reply that a reply was asked to reproduce by teacher forcing.
///
/// Teacher forcing feeds the model the recorded reply's tokens in batched decodes, with scores at
/// every position, and runs the sampler and every hook over the positions in order, exactly as
/// generating would. While each position yields the recorded token, nothing is generated; at the
/// first that does not, the tokens after it leave the cache and the reply is generated from there.
/// A recorded token counts as the model's choice within the reply's ``Tolerance`` (a near-tie
/// that another machine's kernels may order differently); with a tolerance of 0 the reply is
/// exactly the one generating would give.
public enum TeacherForcing: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The model, fed the recorded reply, chose each of its tokens (and ended where it ended),
    /// some of them only within the tolerance (`nearTies`): the reply's `tokens` were confirmed
    /// without generating them.
    case confirmed(tokens: Int, nearTies: NearTies = NearTies())
    /// The model chose otherwise than the recording at reply token `from` (0 is the first), or a
    /// plugin took text back to there: from that token on, the reply was generated.
    case regenerated(from: Int)
    /// The recorded reply was not tried, and the reply was generated: the reason.
    case skipped(SkipReason)

    /// Why a recorded reply was generated again without trying teacher forcing.
    public enum SkipReason: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The user asked for it (`tide run --regenerate`).
        case asked
        /// The model's backend cannot force tokens, and says why (a remote model samples on its
        /// server; llama.cpp's kernels for some weight formats round a batch differently from a
        /// token alone).
        case unavailable(String)
        /// Sampling at a temperature above 0 without a fixed seed: no run can reproduce it.
        case unseeded
        /// The reply's checks measure generation speed (`ttft`, `rate`), which teacher forcing does not.
        case speedChecks

        public var description: String {
            switch self {
            case .asked: "--regenerate"
            case .unavailable(let why): why
            case .unseeded: "sampled without a fixed seed"
            case .speedChecks: "its checks measure generation speed"
            }
        }
    }

    public var description: String {
        switch self {
        case .confirmed(let tokens, let nearTies) where nearTies.count > 0:
            "confirmed by teacher forcing within tolerance (\(tokens) token\(tokens == 1 ? "" : "s"); \(nearTies.count) "
                + "near-tie\(nearTies.count == 1 ? "" : "s"), largest margin \(nearTies.printedMargin))"
        case .confirmed(let tokens, _): "confirmed by teacher forcing (\(tokens) token\(tokens == 1 ? "" : "s"))"
        case .regenerated(let from): "regenerated from token \(from)"
        case .skipped(let reason): "regenerated: \(reason)"
        }
    }
}

extension TeacherForcing {
    /// How far a turn's recording held, over its rounds: `sofar`, the rounds before (whose
    /// replies took `tokens`), then `next`, a round's own. The first round regenerated decides
    /// (its token counted from the turn's start); rounds all confirmed add up.
    static func turn(_ sofar: TeacherForcing?, then next: TeacherForcing?, after tokens: Int) -> TeacherForcing? {
        switch (sofar, next) {
        case (nil, _): return next
        case (.confirmed(let confirmed, let ties)?, .confirmed(let more, let moreTies)?):
            let merged = NearTies(count: ties.count + moreTies.count, largestMargin: max(ties.largestMargin, moreTies.largestMargin))
            return .confirmed(tokens: confirmed + more, nearTies: merged)
        case (.confirmed?, .regenerated(let from)?): return .regenerated(from: tokens + from)
        case (.confirmed?, let other?): return other
        case (let earlier?, _): return earlier
        }
    }
}

extension TeacherForcing {
    /// Why `backend` cannot check a recorded reply under `parameters` (it cannot at that tolerance,
    /// or the reply is not reproducible); `nil` when it can.
    static func skipped(on backend: any ChatBackend, parameters: GenerationParameters) -> TeacherForcing? {
        if let why = backend.teacherForcingUnavailable(tolerance: parameters.tolerance) { return .skipped(.unavailable(why)) }
        if !parameters.isReproducible { return .skipped(.unseeded) }
        return nil
    }
}
