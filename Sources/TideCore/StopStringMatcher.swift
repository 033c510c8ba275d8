/// Finds stop strings in streamed text without ever showing them.
///
/// Text that could be the start of a stop string is held back until the next piece shows
/// whether it is one. A held-back prefix that turns out not to be a stop string is released
/// with the next piece, or by ``flush()`` at the end of the reply.
public struct StopStringMatcher: Sendable {
    private let stops: [[UInt8]]
    private var held: [UInt8] = []

    /// Creates a matcher for `stops` (empty strings are ignored).
    public init(_ stops: [String]) {
        self.stops = stops.filter { !$0.isEmpty }.map { Array($0.utf8) }
    }

    /// Text currently held back.
    public var heldText: String { String(decoding: held, as: UTF8.self) }

    /// The result of adding text.
    public struct Match: Sendable, Hashable {
        /// Text that is now safe to show.
        public var released: String
        /// The stop string found, if any; nothing after it is kept.
        public var stop: String?
        /// The text that followed the stop string in what was added (what a tool call's marker opens).
        public var following = ""
    }

    /// Adds complete UTF-8 text; returns what can be shown and whether a stop string appeared.
    public mutating func append(_ text: String) -> Match {
        guard !stops.isEmpty else { return Match(released: text, stop: nil) }
        held.append(contentsOf: text.utf8)
        if let (start, stop) = earliestMatch() {
            let released = String(decoding: held[..<start], as: UTF8.self)
            let following = String(decoding: held[(start + stop.count)...], as: UTF8.self)
            held.removeAll()
            return Match(released: released, stop: String(decoding: stop, as: UTF8.self), following: following)
        }
        let keep = longestSuffixStartingAStop()
        let released = String(decoding: held[..<(held.count - keep)], as: UTF8.self)
        held.removeFirst(held.count - keep)
        return Match(released: released, stop: nil)
    }

    /// Releases whatever is held back (the reply ended without completing a stop string).
    public mutating func flush() -> String {
        defer { held.removeAll() }
        return heldText
    }

    /// The first position where a whole stop string occurs, with that string.
    private func earliestMatch() -> (Int, [UInt8])? {
        var best: (Int, [UInt8])?
        for stop in stops where stop.count <= held.count {
            for start in 0...(held.count - stop.count) where best.map({ start < $0.0 }) ?? true {
                if held[start..<(start + stop.count)].elementsEqual(stop) {
                    best = (start, stop)
                    break
                }
            }
        }
        return best
    }

    /// The length of the longest tail of `held` that is a proper prefix of some stop string.
    private func longestSuffixStartingAStop() -> Int {
        var longest = 0
        for stop in stops {
            for length in stride(from: min(stop.count - 1, held.count), to: longest, by: -1)
            where held[(held.count - length)...].elementsEqual(stop[..<length]) {
                longest = length
                break
            }
        }
        return longest
    }
}
