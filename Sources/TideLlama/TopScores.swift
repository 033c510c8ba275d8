/// The best scores of a vocabulary, by one pass of partial selection: a sorted buffer of at most
/// `k` entries that a token enters only if it beats the current worst (ties keep the lower id
/// first, as an argmax does).
@_spi(Benchmarks) public enum TopScores {
    /// The `k` best of the `count` scores at `scores`, best first.
    public static func best(_ k: Int, of scores: UnsafePointer<Float>, count: Int) -> [(id: Int32, logit: Float)] {
        let k = min(max(k, 0), count)
        guard k > 0 else { return [] }
        var best: [(id: Int32, logit: Float)] = []
        best.reserveCapacity(k + 1)
        for index in 0..<count {
            let logit = scores[index]
            if best.count == k, logit <= best[k - 1].logit { continue }
            let position = best.firstIndex { $0.logit < logit } ?? best.count
            best.insert((Int32(index), logit), at: position)
            if best.count > k { best.removeLast() }
        }
        return best
    }
}
