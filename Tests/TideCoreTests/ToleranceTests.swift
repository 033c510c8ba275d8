import Foundation
import Testing
@testable import TideCore

/// The tolerance rule on synthetic scores, with samplers written out here: greedy (the best
/// score), and a seeded draw (a fixed random number against the softmax's cumulative shares, as
/// llama.cpp's distribution sampler draws).
@Suite struct ToleranceTests {
    /// The best-scored token (the first of equal ones).
    static func greedy(_ scores: [Float]) -> Int {
        scores.indices.max { scores[$0] < scores[$1] || (scores[$0] == scores[$1] && $0 > $1) }!
    }

    /// The token a draw of `u` (0 ≤ u < 1) picks from the softmax of `scores` at `temperature`.
    static func draw(_ scores: [Float], u: Double, temperature: Double = 1) -> Int {
        let top = Double(scores.max()!)
        let weights = scores.map { exp((Double($0) - top) / temperature) }
        let total = weights.reduce(0, +)
        var cumulative = 0.0
        for (token, weight) in weights.enumerated() {
            cumulative += weight / total
            if u < cumulative { return token }
        }
        return weights.count - 1
    }

    static func raised(_ scores: [Float], _ token: Int, by raise: Float) -> [Float] {
        var copy = scores
        copy[token] += raise
        return copy
    }

    @Test func aGreedyNearTieIsConfirmedWithItsMargin() throws {
        let scores: [Float] = [1.0, 3.00, 2.97, -1]
        let margin = try #require(Tolerance.margin(of: 2, within: 0.1) { Self.greedy(Self.raised(scores, 2, by: $0)) })
        // The least raise that makes token 2 the best is 0.03 (a tie goes to the lower id).
        #expect(margin >= 0.03 && margin <= 0.03 + 0.1 / 4096 + 1e-6)
    }

    @Test func aClearDifferenceIsNotConfirmed() {
        let scores: [Float] = [1.0, 3.0, 2.5, -1]
        #expect(Tolerance.margin(of: 2, within: 0.1) { Self.greedy(Self.raised(scores, 2, by: $0)) } == nil)
        #expect(Tolerance.margin(of: 2, within: 0.6) { Self.greedy(Self.raised(scores, 2, by: $0)) } != nil)
    }

    @Test func aToleranceOfZeroIsTheExactRule() {
        let scores: [Float] = [3.0, 3.0 - 1e-6]
        var asked = 0
        #expect(Tolerance.margin(of: 1, within: 0) { raise -> Int in asked += 1; return Self.greedy(Self.raised(scores, 1, by: raise)) } == nil)
        #expect(asked == 0)
    }

    @Test func aSeededDrawAtTheEdgeOfTheRecordedTokensShareIsConfirmed() throws {
        // Token 1 holds the shares from about 0.5 to 1; a draw of 0.499 falls just short of it.
        let scores: [Float] = [0, 0]
        #expect(Self.draw(scores, u: 0.499) == 0)
        let margin = try #require(Tolerance.margin(of: 1, within: 0.1) { Self.draw(Self.raised(scores, 1, by: $0), u: 0.499) })
        // Raising token 1 by m moves the edge to 1 / (1 + e^m): about 0.499 for m = 0.004.
        #expect(margin > 0.003 && margin < 0.005)
        // A draw far from the edge needs more than the tolerance.
        #expect(Tolerance.margin(of: 1, within: 0.1) { Self.draw(Self.raised(scores, 1, by: $0), u: 0.3) } == nil)
    }

    @Test func aLowTemperatureNarrowsWhatTheToleranceReaches() {
        // The raise is on the scores before the temperature divides them: at 0.1 a raise of 0.1
        // moves the draw as far as a raise of 1 does at 1.
        let scores: [Float] = [0, 0]
        let atOne = Tolerance.margin(of: 1, within: 1) { Self.draw(Self.raised(scores, 1, by: $0), u: 0.3) }
        let atTenth = Tolerance.margin(of: 1, within: 0.1) { Self.draw(Self.raised(scores, 1, by: $0), u: 0.3, temperature: 0.1) }
        #expect(atOne != nil && atTenth != nil)
        #expect(abs(atOne! - 10 * atTenth!) < 0.01)
    }

    @Test func nearTiesCountAndKeepTheLargestMargin() {
        var ties = NearTies()
        ties.add(0.02)
        ties.add(0.0731)
        ties.add(0.01)
        #expect(ties == NearTies(count: 3, largestMargin: 0.0731))
        #expect(ties.printedMargin == "0.073")
        #expect(NearTies(count: 1, largestMargin: 0.0001).printedMargin == "< 0.001")
    }

    @Test func reportsSayWhetherAConfirmationNeededTheTolerance() {
        #expect("\(TeacherForcing.confirmed(tokens: 7))" == "confirmed by teacher forcing (7 tokens)")
        #expect("\(TeacherForcing.confirmed(tokens: 7, nearTies: NearTies(count: 2, largestMargin: 0.031)))"
                == "confirmed by teacher forcing within tolerance (7 tokens; 2 near-ties, largest margin 0.031)")
    }

    @Test func theToleranceIsAParameterWithARange() {
        var parameters = GenerationParameters()
        #expect(parameters.tolerance == Tolerance.standard)
        parameters.tolerance = -0.1
        #expect(throws: InvalidParameterError(name: "tolerance", value: "-0.1", requirement: Tolerance.requirement)) {
            try parameters.validate()
        }
        parameters.tolerance = 11
        #expect(throws: InvalidParameterError.self) { try parameters.validate() }
        parameters.tolerance = 0
        #expect(throws: Never.self) { try parameters.validate() }
    }
}
