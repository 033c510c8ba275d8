/// What a reply needs to take back its end: for each token a rewind may still reach, where its
/// text starts and the state of the text pipeline before it; the text released by the
/// stop-string matcher but held back from per-token hooks until no rewind can reach it; and the
/// tokens banned at each position by earlier rewinds.
///
/// With a window of 0 (no hook rewinds) nothing is recorded and text is released at once.
struct RewindLedger {
    /// A token that a rewind may still take back.
    struct Entry {
        /// Its position in the reply.
        var index: Int
        var id: Int32?
        /// Where its text starts in the reply text hooks see (``ReplyProgress/text``), in bytes.
        var textStart: Int
        /// The state before it: the raw reply's length, and its text on the way out.
        var rawLength: Int
        var text: HeldText
    }

    /// Text waiting to be shown: released by the stop-string matcher, not yet safe from rewinds.
    struct Piece {
        var index: Int
        var id: Int32?
        var text: String
        /// Where the text ends in the raw reply, in bytes.
        var rawEnd: Int
    }

    /// The largest window of the hooks that may rewind, in bytes; 0 when none may.
    let window: Int
    private(set) var entries: [Entry] = []
    private(set) var pieces: [Piece] = []
    /// Tokens banned at each position by rewinds to it.
    private(set) var bans: [Int: Set<Int32>] = [:]

    init(window: Int) {
        self.window = window
    }

    /// Records the state before a token (only when a hook may rewind).
    mutating func record(_ entry: Entry) {
        entries.append(entry)
    }

    /// Queues text released after token `index`.
    mutating func queue(_ piece: Piece) {
        guard !piece.text.isEmpty else { return }
        pieces.append(piece)
    }

    /// Takes the pieces that no rewind can reach once the reply text is `length` bytes long: those
    /// ending at least twice the window before its end. (Twice: a rewind reaches back at most one
    /// window from the length at its time, so what was released stays out of reach after it.)
    /// All of them when `everything`. Forgets the tokens of the pieces taken.
    mutating func release(length: Int, everything: Bool = false) -> [Piece] {
        let count = everything ? pieces.count : pieces.prefix { $0.rawEnd <= length - 2 * window }.count
        let taken = Array(pieces.prefix(count))
        pieces.removeFirst(count)
        if let last = taken.last { entries.removeAll { $0.index <= last.index } }
        return taken
    }

    /// The first position a rewind can still reach (earlier tokens were released).
    var firstRewindable: Int? { entries.first?.index }

    /// The token a rewind to byte `offset` of the reply text takes back first: the one holding
    /// that byte, or the first of the tokens that together spelled the character there.
    func entry(at offset: Int) -> Entry? {
        guard let last = entries.last(where: { $0.textStart <= offset }) else { return nil }
        return entries.first { $0.textStart == last.textStart }
    }

    /// The token `rewind` takes the reply back to, for a hook whose window is `window` bytes,
    /// when the text hooks see is `length` bytes long; or why the rewind is refused: it reaches
    /// before the reply's start, past its end, past the hook's window, or into text already shown.
    func target(of rewind: Rewind, window: Int, textLength length: Int) -> Result<Entry, RewindMisuse> {
        if rewind.offset < 0 { return .failure(.beforeTheStart) }
        if rewind.offset >= length { return .failure(.afterTheEnd(offset: rewind.offset, length: length)) }
        if length - rewind.offset > window { return .failure(.pastTheWindow(bytes: length - rewind.offset, window: window)) }
        guard let entry = entry(at: rewind.offset) else { return .failure(.alreadyShown) }
        return .success(entry)
    }

    /// Takes back every token from `entry` on: their pieces, their entries, and the bans of the
    /// positions after it; bans `banned` at its position.
    mutating func rewind(to entry: Entry, banning banned: Set<Int32>) {
        entries.removeAll { $0.index >= entry.index }
        pieces.removeAll { $0.index >= entry.index }
        bans = bans.filter { $0.key <= entry.index }
        bans[entry.index, default: []].formUnion(banned)
    }
}
