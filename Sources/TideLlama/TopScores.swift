/// The best scores of a vocabulary, by one pass of partial selection: a sorted buffer of at most
/// `k` entries that a token enters only if it beats the current worst (ties keep the lower id
/// first, as an argmax does), a run of 256 scores whose vector maximum beats none passed over at
/// once. (A vector comparison's `any` reduces lane by lane in Swift; a maximum by
/// `replace(with:where:)` stays in vector registers.)
public enum TopScores {
    /// The `k` best of the `count` scores at `scores`, best first.
    public static func best(_ k: Int, of scores: UnsafePointer<Float>, count: Int) -> [(id: Int32, logit: Float)] {
        let k = min(max(k, 0), count)
        guard k > 0 else { return [] }
        var best: [(id: Int32, logit: Float)] = []
        best.reserveCapacity(k + 1)
        var worst = -Float.infinity
        var index = 0
        while index < count {
            let end = min(index + 256, count)
            if best.count == k, maximum(scores, from: index, to: end) <= worst {
                index = end
                continue
            }
            for token in index..<end {
                let logit = scores[token]
                if best.count == k, logit <= worst { continue }
                let position = best.firstIndex { $0.logit < logit } ?? best.count
                best.insert((Int32(token), logit), at: position)
                if best.count > k { best.removeLast() }
                if best.count == k { worst = best[k - 1].logit }
            }
            index = end
        }
        return best
    }

    /// The best of the `count` scores at `scores` and its token (the lowest id among equals, as
    /// an argmax): one pass of 16-wide vector maxima, a run of 256 at a time, then a look at the
    /// run that first holds the best — a few microseconds for a vocabulary of 49,152, where a
    /// scalar argmax took tens.
    public static func best(of scores: UnsafePointer<Float>, count: Int) -> (id: Int32, logit: Float) {
        precondition(count > 0, "a vocabulary has a token")
        // The run of 256 that first holds the best, then its first token that does.
        var (best, run) = (-Float.infinity, 0)
        for start in stride(from: 0, to: count, by: 256) {
            let top = maximum(scores, from: start, to: min(start + 256, count))
            if top > best { (best, run) = (top, start) }
        }
        var index = run
        while index < count - 1, scores[index] != best { index += 1 }
        return (Int32(index), best)
    }

    /// The tokens whose score is at least `threshold`, in order, or `nil` when there are more
    /// than `limit`: one vector pass, and a look at the scores of the few runs of 256 that hold one.
    public static func tokens(of scores: UnsafePointer<Float>, count: Int, atLeast threshold: Float, limit: Int) -> [Int32]? {
        var found: [Int32] = []
        for start in stride(from: 0, to: count, by: 256) {
            let end = min(start + 256, count)
            guard maximum(scores, from: start, to: end) >= threshold else { continue }
            for token in start..<end where scores[token] >= threshold {
                guard found.count < limit else { return nil }
                found.append(Int32(token))
            }
        }
        return found
    }

    /// The best of the scores from `start` up to `end` (`-infinity` for none).
    static func maximum(_ scores: UnsafePointer<Float>, from start: Int, to end: Int) -> Float {
        let lanes = SIMD16<Float>.scalarCount
        var best = SIMD16<Float>(repeating: -.infinity)
        var index = start
        while index + lanes <= end {
            // `replace(with:where:)` compiles to vector instructions; `pointwiseMax` went lane by lane.
            let next = load(scores, index)
            best.replace(with: next, where: next .> best)
            index += lanes
        }
        var result = best.max()
        while index < end {
            result = max(result, scores[index])
            index += 1
        }
        return result
    }

    private static func load(_ scores: UnsafePointer<Float>, _ index: Int) -> SIMD16<Float> {
        UnsafeRawPointer(scores + index).loadUnaligned(as: SIMD16<Float>.self)
    }
}
