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
}
