import Foundation

/// A byte count in the largest unit that keeps it whole-ish ("16 MiB", "512 KiB", "12 bytes").
public struct ByteCount: Sendable, Hashable, CustomStringConvertible {
    /// The count.
    public let bytes: Int

    /// A count of `bytes`.
    public init(_ bytes: Int) { self.bytes = bytes }

    public var description: String {
        if bytes >= 1 << 30 { return "\((bytes + (1 << 29)) >> 30) GiB" }
        if bytes >= 1 << 20 { return "\((bytes + (1 << 19)) >> 20) MiB" }
        if bytes >= 1 << 10 { return "\((bytes + (1 << 9)) >> 10) KiB" }
        return "\(bytes) bytes"
    }

    /// Reads a size as a user writes it: a whole number of bytes, or one followed by `K`, `M` or
    /// `G` (with or without `B` or `iB`, any case), each 1024 times the one before; `nil` for
    /// anything else.
    public init?(parsing text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let digits = trimmed.prefix { $0.isASCII && $0.isNumber }
        var unit = trimmed.dropFirst(digits.count).trimmingCharacters(in: .whitespaces)
        for suffix in ["ib", "b"] where unit.hasSuffix(suffix) && unit.count > suffix.count {
            unit.removeLast(suffix.count)
            break
        }
        let shifts = ["": 0, "b": 0, "k": 10, "m": 20, "g": 30, "t": 40]
        guard !digits.isEmpty, let shift = shifts[unit], let count = Int(digits),
              count <= Int.max >> shift else { return nil }
        bytes = count << shift
    }
}
