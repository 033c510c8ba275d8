/// The rewinds' part of a reply (``ReplyLoop``): a hook's rewind checked against what the
/// ledger still holds, made by the decoder, and the text pipeline put back as it was.
extension ReplyLoop {
    /// What a hook's rewind came to.
    enum TakeBack {
        /// Refused: the hook was reported and disabled, and the reply goes on.
        case refused
        /// The reply was taken back.
        case done
        /// The reply was taken back once too often: it ends.
        case tooMany
    }

    /// Takes the reply back as `hook`'s `rewind` asks, when the rewind stays within the hook's
    /// `window` and the text not yet shown and the decoder can make it: the text pipeline, the
    /// ledger and the counts go back to the token it reaches, whose first token taken back may be
    /// banned there. Past `maxRewinds` rewinds, the reply ends with what it holds.
    mutating func takeBack(_ rewind: Rewind, by hook: any ChatHook, window: Int, progress: ReplyProgress,
                                   decoder: any ReplyDecoder, maxRewinds: Int) throws -> TakeBack
    {
        let entry: RewindLedger.Entry
        switch ledger.target(of: rewind, window: window, textLength: progress.text.utf8.count) {
        case .failure(let misuse):
            try hooks.fail(hook, at: .stop, misuse)
            reportFailures()
            return .refused
        case .success(let target):
            entry = target
        }
        // A rewind the decoder cannot make (a point out of its reach) is the hook's failure.
        guard try hooks.charge(hook, at: .stop, { try decoder.rewind(to: entry.index) }) != nil else {
            reportFailures()
            return .refused
        }
        statistics.rewinds += 1
        statistics.discardedTokens += generated - entry.index
        emit(.rewound(TakenBack(hook: hook.name, text: String(decoding: progress.text.utf8.dropFirst(entry.rawLength), as: UTF8.self),
                                tokens: generated - entry.index)))
        generated = entry.index
        tokenLogprobs.removeSubrange(min(generated, tokenLogprobs.count)...)
        statistics.generatedTokens = generated
        text = entry.text
        rawText = String(decoding: rawText.utf8.prefix(entry.rawLength), as: UTF8.self)
        lastID = nil
        ledger.rewind(to: entry, banning: rewind.banned(first: entry.id))
        guard statistics.rewinds > maxRewinds else { return .done }
        try hooks.fail(hook, at: .stop, RewindMisuse.tooMany(maxRewinds))
        reportFailures()
        let tail = text.flush()
        rawText += tail
        ledger.queue(RewindLedger.Piece(index: max(0, generated - 1), id: nil, text: tail, rawEnd: rawText.utf8.count))
        try release(progress: ReplyProgress(text: rawText, tokenCount: generated, elapsed: clock.now - start), everything: true)
        return .tooMany
    }
}

extension Rewind {
    /// The tokens banned at the position a rewind goes back to: those it names, and the first
    /// token taken back (`first`) when it asks.
    func banned(first: Int32?) -> Set<Int32> {
        var banned = Set(bannedTokens)
        if banFirstToken, let first { banned.insert(first) }
        return banned
    }
}
