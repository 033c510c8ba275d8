import Foundation
import Testing
@testable import TideLlama
import TideTestSupport

/// The vector passes that read log-probabilities, against plain double-precision arithmetic on
/// the same scores.
@Suite struct LogSoftmaxTests {
    /// Scores shaped like a vocabulary's: most far below a few, some banned (−∞).
    static func scores(count: Int, seed: UInt64) -> [Float] {
        var generator = SplitMix(seed: seed)
        return (0..<count).map { index in
            if index % 997 == 3 { return -.infinity }
            let base = Float.random(in: -12...8, using: &generator)
            return index % 211 == 0 ? base + 14 : base
        }
    }

    @Test(arguments: [49_152, 49_155, 262_144, 17])
    func theNormaliserIsTheDoublePrecisionOnesToAMillionth(count: Int) {
        let scores = Self.scores(count: count, seed: UInt64(count))
        let best = scores.max()!
        let exact = Double(best) + log(scores.reduce(0.0) { $0 + exp(Double($1) - Double(best)) })
        let read = scores.withUnsafeBufferPointer { LogSoftmax($0.baseAddress!, count: count, top: 5) }
        #expect(abs(read.normaliser - exact) < 1e-6, "\(read.normaliser) against \(exact)")
    }

    @Test func theVectorExponentialIsExpfToAFewUlps() {
        for start in stride(from: Float(-100), to: 0, by: 0.37) {
            let x = SIMD16<Float>((0..<16).map { start + Float($0) * 0.021 })
            let e = LogSoftmax.exponential(x)
            for lane in 0..<16 where x[lane] >= -87 {
                let exact = exp(Double(x[lane]))
                #expect(abs(Double(e[lane]) - exact) <= 3e-7 * exact, "e^\(x[lane]): \(e[lane]) against \(exact)")
            }
        }
        #expect(LogSoftmax.exponential(SIMD16(repeating: -.infinity)).max() < 1e-37)
    }

    @Test(arguments: [1, 5, 20])
    func theBestScoresAreThoseOfASortAndTiesKeepTheLowerToken(k: Int) {
        var scores = Self.scores(count: 49_152, seed: 7)
        scores[40_000] = 30
        scores[12] = 30
        let expected = scores.indices.sorted { scores[$0] != scores[$1] ? scores[$0] > scores[$1] : $0 < $1 }.prefix(k)
        let found = scores.withUnsafeBufferPointer { TopScores.best(k, of: $0.baseAddress!, count: $0.count) }
        #expect(found.map(\.id) == expected.map(Int32.init))
        #expect(found.first?.id == 12)
    }
}
