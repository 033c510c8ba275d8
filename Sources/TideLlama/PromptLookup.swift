/// Prompt-lookup drafting: guesses how a reply goes on by finding the last few tokens of the
/// context (the prompt and the reply so far) earlier in it, and proposing the tokens that
/// followed them there. Replies that quote, edit or reformat a given text repeat long runs of
/// it, which a model decodes one token at a time; a draft lets a backend check several of them
/// in one batched decode (``DraftPolicy`` decides how many, and when not to draft at all).
///
/// The search prefers the longest match, from ``longestMatch`` tokens down to ``shortestMatch``,
/// and among equally long ones the most recent.
public struct PromptLookup: Sendable {
    /// The context searched: the prompt's tokens, then each token the reply kept.
    public private(set) var tokens: [Int32]
    /// The longest run of last tokens looked for.
    public static let longestMatch = 6
    /// The shortest run of last tokens whose earlier occurrence makes a draft.
    public static let shortestMatch = 3

    /// A lookup over `prompt`.
    public init(prompt: [Int32]) {
        tokens = prompt
    }

    /// Adds a token the reply kept.
    public mutating func append(_ token: Int32) {
        tokens.append(token)
    }

    /// Forgets the tokens from `count` on (a rewind took them back).
    public mutating func truncate(to count: Int) {
        tokens.removeSubrange(min(count, tokens.count)...)
    }

    /// Up to `limit` tokens that followed the latest earlier occurrence of the longest run of
    /// last tokens found again; empty when no run of `minimumMatch` tokens recurs.
    public func draft(limit: Int, minimumMatch: Int = shortestMatch) -> ArraySlice<Int32> {
        let count = tokens.count
        let minimumMatch = max(minimumMatch, 1)
        guard limit > 0, count > minimumMatch else { return [] }
        var bestEnd = 0
        var bestLength = 0
        tokens.withUnsafeBufferPointer { history in
            let last = history[count - 1]
            // `end` is one past an earlier occurrence's last token; at least one token follows it.
            var end = count - 1
            while end >= minimumMatch {
                defer { end -= 1 }
                guard history[end - 1] == last else { continue }
                var length = 1
                while length < Self.longestMatch, length < end, history[end - 1 - length] == history[count - 1 - length] {
                    length += 1
                }
                if length > bestLength {
                    bestLength = length
                    bestEnd = end
                    if length == Self.longestMatch { break }
                }
            }
        }
        guard bestLength >= minimumMatch else { return [] }
        return tokens[bestEnd..<min(bestEnd + limit, count)]
    }
}
