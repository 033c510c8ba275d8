import Testing
import TideCore
@testable import TideLlama

/// Another machine simulated (`TIDE_MACHINE`): the score noise is fixed by its seed and a row's
/// position and token alone — the same alone and in any batch —, differs between seeds, stays
/// within its bound; the batch drift moves only rows decoded with others of their sequence; the
/// variable's settings are read, or refused with the reason.
@Suite struct SimulatedMachineTests {
    static let vocabulary = 4096

    /// The rows of one decode, perturbed by `machine`: each row starts from the same scores (the
    /// candidate's index / 1000), so what differs is the machine's doing.
    static func decode(_ entries: [(sequence: Int32, position: Int, token: Int32)], on machine: SimulatedMachine) -> [[Float]] {
        let plain = (0..<vocabulary).map { Float($0) / 1000 }
        // One buffer of rows, as llama.cpp's logits are, a pointer per entry.
        var scores = Array(entries.map { _ in plain }.joined())
        let scored = entries.enumerated().map { ScoredEntry(index: $0, sequence: $1.sequence, position: $1.position, token: $1.token) }
        scores.withUnsafeMutableBufferPointer { buffer in
            machine.perturb(rows: scored, vocabularySize: vocabulary) { buffer.baseAddress! + $0 * vocabulary }
        }
        return entries.indices.map { Array(scores[$0 * vocabulary..<($0 + 1) * vocabulary]) }
    }

    @Test func noiseIsFixedByItsSeedAndTheSameAloneAndInABatch() {
        let machine = SimulatedMachine(noise: ScoreNoise(seed: 7))
        let alone = Self.decode([(0, 41, 500)], on: machine)[0]
        #expect(alone == Self.decode([(0, 41, 500)], on: machine)[0], "deterministic")
        // In a chunk of its sequence (teacher forcing, a draft's check) and among other sequences.
        let chunk = Self.decode([(0, 40, 9), (0, 41, 500), (0, 42, 77)], on: machine)
        #expect(chunk[1] == alone)
        let mixed = Self.decode([(3, 12, 500), (1, 41, 500), (2, 41, 501)], on: machine)
        #expect(mixed[1] == alone, "the sequence does not matter")
        #expect(mixed[2] != alone, "the token does")
        #expect(chunk[0] != alone && mixed[0] != alone, "the position does")

        let other = Self.decode([(0, 41, 500)], on: SimulatedMachine(noise: ScoreNoise(seed: 8)))[0]
        #expect(other != alone, "another seed, other scores")
        let plain = (0..<Self.vocabulary).map { Float($0) / 1000 }
        let moved = zip(alone, plain).map { abs($0 - $1) }
        #expect(moved.allSatisfy { $0 <= ScoreNoise.defaultScale + 1e-5 })
        #expect(moved.max()! > ScoreNoise.defaultScale * 0.6, "some score of a row moves by most of the bound")
        #expect(moved.filter { $0 > 0 }.count > Self.vocabulary * 9 / 10, "nearly every score moves")
        let mean = zip(alone, plain).map { $0 - $1 }.reduce(0, +) / Float(Self.vocabulary)
        #expect(abs(mean) < 0.01, "around the score, not to one side")

        let wider = Self.decode([(0, 41, 500)], on: SimulatedMachine(noise: ScoreNoise(seed: 7, scale: 1)))[0]
        #expect(zip(wider, plain).map { abs($0 - $1) }.max()! > 0.6)
    }

    @Test func aBatchDriftMovesOnlyRowsBatchedWithTheirSequence() {
        let machine = SimulatedMachine(batchDrift: BatchDrift(amount: 0.5))
        let plain = (0..<Self.vocabulary).map { Float($0) / 1000 }
        #expect(Self.decode([(0, 41, 500)], on: machine)[0] == plain, "a token decoded alone")
        let sequences = Self.decode([(0, 41, 500), (1, 41, 500), (2, 9, 3)], on: machine)
        #expect(sequences.allSatisfy { $0 == plain }, "one token of each of several sequences")
        let chunk = Self.decode([(0, 40, 9), (0, 41, 500), (1, 41, 500)], on: machine)
        #expect(chunk[0] != plain && chunk[1] != plain && chunk[2] == plain)

        // At one scored position: a token put exactly the amount ahead of the best.
        let placed = SimulatedMachine(batchDrift: BatchDrift(amount: 0.3, placement: .init(scoredPosition: 42, token: 7)))
        let rows = Self.decode([(0, 40, 9), (0, 41, 500), (0, 42, 77)], on: placed)
        #expect(rows[0] == plain && rows[2] == plain)
        #expect(rows[1][7] == plain[Self.vocabulary - 1] + 0.3)
        #expect(rows[1].indices.filter { $0 != 7 }.allSatisfy { rows[1][$0] == plain[$0] })
        #expect(Self.decode([(0, 41, 500)], on: placed)[0] == plain, "alone, nothing moves")
    }

    @Test func theVariableIsReadOrRefusedWithTheReason() throws {
        #expect(try SimulatedMachine.fromEnvironment([:]).isReal)
        #expect(try SimulatedMachine.fromEnvironment([SimulatedMachine.variable: " "]).isReal)
        let machine = try SimulatedMachine(parsing: "noise=3 costs=dear batch-drift=0.2")
        #expect(machine.noise == ScoreNoise(seed: 3))
        #expect(machine.checkCosts == .dear)
        #expect(machine.batchDrift == BatchDrift(amount: 0.2))
        #expect(try SimulatedMachine(parsing: "noise=3*0.5,costs=cheap").noise?.scale == 0.5)
        #expect(try SimulatedMachine(parsing: "costs=1.5,2,3,5 noise=1").checkCosts?.costs == [1.5, 2, 3, 5])
        #expect(try SimulatedMachine(parsing: machine.description) == machine, "its description reads back")

        for (text, named) in [("noise", "noise"), ("noise=x", "noise=x"), ("noise=1*0", "noise=1*0"), ("costs=fast", "costs=fast"),
                              ("costs=3,2,1,0", "costs=3,2,1,0"), ("costs=1,2", "costs=1,2"), ("batch-drift=-1", "batch-drift=-1"),
                              ("speed=2", "speed=2")] {
            #expect(throws: SimulatedMachineError.self) { try SimulatedMachine(parsing: text) }
            do {
                _ = try SimulatedMachine(parsing: text)
            } catch {
                #expect(error.description.contains("'\(named)'") && error.description.contains("TIDE_MACHINE"), "\(error)")
            }
        }
    }

    /// The policy `--draft always` drafts with: the longest drafts, whatever they cost or earn.
    @Test func alwaysDraftsWhateverChecksCost() {
        var policy = DraftPolicy.always
        #expect(policy.nextLength() == DraftPolicy.lengths.last)
        #expect(policy.affordableLength(most: 15, tokens: 1, costs: .dear) == 15)
        policy.record(drafted: 15, accepted: 0, cost: 15, costs: .dear)
        #expect(policy.nextLength() == DraftPolicy.lengths.last, "no pause after a draft that did not pay")
        #expect(policy.matchLength == PromptLookup.shortestMatch)
        #expect(DraftPolicy().affordableLength(most: 15, tokens: 1, costs: .dear) == 0)
    }
}
