import CLuaShim
import TideCore

extension Vocabulary {
    /// The tokens of the UTF-8 text `bytes` (invalid UTF-8 repaired as String does), tokenized so
    /// that the running plugin call's budget (`state`'s) is charged and its deadline checked
    /// before each piece of work; nil once a limit is hit (the call then fails with that limit's
    /// error).
    ///
    /// Text up to `wholeBytes` is tokenized in one piece. Longer text is tokenized in pieces of at
    /// most `pieceBytes`, each cut just before a single space between two printable ASCII
    /// characters, which byte-level BPE tokenizers never merge across, so the tokens are those of
    /// the whole text; only where a piece holds no such space is it cut at a character boundary,
    /// where the tokens may differ from the whole text's.
    func tokens(ofUTF8 bytes: UnsafeRawBufferPointer, inPiecesCharging state: OpaquePointer?,
                wholeBytes: Int = 64 << 10, pieceBytes: Int = 16 << 10) -> [Int32]?
    {
        if bytes.count <= wholeBytes {
            if let state, tide_lua_spend(state, TokenizingCost.call + TokenizingCost.perByte * Int64(bytes.count)) != 0 { return nil }
            return tokens(of: String(decoding: bytes, as: UTF8.self))
        }
        if let state, tide_lua_spend(state, TokenizingCost.call) != 0 { return nil }
        var tokens: [Int32] = []
        var start = 0
        while start < bytes.count {
            let end = Self.pieceEnd(in: bytes, from: start, atMost: pieceBytes)
            if let state, tide_lua_spend(state, TokenizingCost.perByte * Int64(end - start)) != 0 { return nil }
            tokens += self.tokens(of: String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
            start = end
        }
        return tokens
    }

    /// Where the piece that starts at `start` ends (see `tokens(ofUTF8:inPiecesCharging:wholeBytes:pieceBytes:)`).
    static func pieceEnd(in bytes: UnsafeRawBufferPointer, from start: Int, atMost pieceBytes: Int) -> Int {
        var end = start + pieceBytes
        guard end < bytes.count else { return bytes.count }
        let printable: ClosedRange<UInt8> = 0x21...0x7E
        for space in stride(from: end - 1, to: start, by: -1)
        where bytes[space] == 0x20 && printable.contains(bytes[space - 1]) && printable.contains(bytes[space + 1]) {
            return space
        }
        while end > start + 1 && bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return end
    }
}
