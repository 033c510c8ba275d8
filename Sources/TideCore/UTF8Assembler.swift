/// Turns a stream of byte chunks into valid UTF-8 text.
///
/// A token may end in the middle of a multi-byte character; those bytes are held until the
/// character is complete. Bytes that can never form a valid character become U+FFFD, so invalid
/// UTF-8 never reaches the terminal.
public struct UTF8Assembler: Sendable {
    private var pending: [UInt8] = []

    /// Creates an empty assembler.
    public init() {}

    /// Bytes held back because they may start a character still to come.
    public var heldByteCount: Int { pending.count }

    /// Adds bytes and returns the text that is now complete.
    public mutating func append(_ bytes: some Sequence<UInt8>) -> String {
        pending.append(contentsOf: bytes)
        let keep = Self.incompleteSuffixLength(pending)
        let complete = pending[..<(pending.count - keep)]
        let text = String(decoding: complete, as: UTF8.self)
        pending.removeFirst(pending.count - keep)
        return text
    }

    /// Returns what is still held (as U+FFFD, since the character never completed) and empties the assembler.
    public mutating func finish() -> String {
        defer { pending.removeAll() }
        return String(decoding: pending, as: UTF8.self)
    }

    /// Length of a trailing sequence that is a valid but unfinished start of a character.
    private static func incompleteSuffixLength(_ bytes: [UInt8]) -> Int {
        // A character is at most 4 bytes, so only the last 3 can be an unfinished start.
        for length in 1...min(3, bytes.count) {
            let lead = bytes[bytes.count - length]
            if lead & 0b1100_0000 == 0b1000_0000 { continue }  // continuation byte: look further back
            let needed: Int
            switch lead {
            case 0xC2...0xDF: needed = 2
            case 0xE0...0xEF: needed = 3
            case 0xF0...0xF4: needed = 4
            default: return 0
            }
            guard length < needed, isValidPrefix(bytes[(bytes.count - length)...]) else { return 0 }
            return length
        }
        return 0
    }

    /// Whether `bytes` (a lead byte and continuation bytes) can still become a valid character.
    private static func isValidPrefix(_ bytes: ArraySlice<UInt8>) -> Bool {
        let lead = bytes[bytes.startIndex]
        guard bytes.count > 1 else { return true }
        let second = bytes[bytes.startIndex + 1]
        // The second byte's range excludes overlong forms and surrogates (RFC 3629).
        switch lead {
        case 0xE0: guard (0xA0...0xBF).contains(second) else { return false }
        case 0xED: guard (0x80...0x9F).contains(second) else { return false }
        case 0xF0: guard (0x90...0xBF).contains(second) else { return false }
        case 0xF4: guard (0x80...0x8F).contains(second) else { return false }
        default: guard (0x80...0xBF).contains(second) else { return false }
        }
        return bytes.dropFirst(2).allSatisfy { $0 & 0b1100_0000 == 0b1000_0000 }
    }
}
