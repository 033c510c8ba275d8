/// Another machine, simulated on this one (`TIDE_MACHINE`): scores moved as another CPU's kernels
/// move them, batches scored otherwise than single tokens as a GPU's are, and the costs Tide
/// measures to decide (what a drafted check costs) replaced by given ones.
///
/// A test suite, or a folder of golden transcripts, that passes on one machine can fail on the
/// next: another CPU's kernels round the model's scores otherwise, so a greedy reply takes
/// another word where two were nearly tied, and a machine whose batches are slower drafts
/// otherwise. Running under a simulated machine shows that on this one. It is an environment
/// variable rather than an option because it must reach every process a run starts (the tests
/// start `tide` many times, `tide serve` answers other clients) without changing a command line,
/// and because it changes what the model computes, which no setting of a reply may do.
///
/// `TIDE_MACHINE` holds settings separated by spaces or commas (docs/conversations.md):
/// - `noise=SEED` moves every score by a pseudo-random amount up to ``ScoreNoise/defaultScale``
///   logits (`noise=SEED*SCALE` for another bound), fixed by the seed, the position, the token
///   there and the scored token, so a token gets the same scores alone, in a batch, drafted or
///   teacher-forced (``ScoreNoise``);
/// - `costs=cheap`, `costs=dear` or `costs=C2,C4,C8,C15` gives what a decode of a chunk of 2, 4, 8
///   and 15 tokens costs in single decodes, instead of measuring it (``CheckCosts``);
/// - `batch-drift=AMOUNT` moves the scores of every position decoded in a batch with others of its
///   sequence by up to AMOUNT more, as a GPU's batched kernels do (``BatchDrift``).
public struct SimulatedMachine: Sendable, Hashable, CustomStringConvertible {
    /// The environment variable that names the machine.
    public static let variable = "TIDE_MACHINE"

    /// How every score moves; `nil`: as this machine computes it.
    public var noise: ScoreNoise?
    /// What a check of a draft costs; `nil`: measured (``CheckCosts``).
    public var checkCosts: CheckCosts?
    /// How a batch's scores differ from a single token's; `nil`: as this machine's kernels do.
    public var batchDrift: BatchDrift?

    /// This machine, unchanged.
    public init(noise: ScoreNoise? = nil, checkCosts: CheckCosts? = nil, batchDrift: BatchDrift? = nil) {
        self.noise = noise
        self.checkCosts = checkCosts
        self.batchDrift = batchDrift
    }

    /// Whether nothing is simulated.
    public var isReal: Bool { noise == nil && checkCosts == nil && batchDrift == nil }

    /// The machine `TIDE_MACHINE` names in `environment`: this one when it is unset or empty.
    /// The `tide` target reads its process's environment once and passes the machine in
    /// (``LlamaContextOptions/machine``); nothing below it reads the environment.
    public static func fromEnvironment(_ environment: [String: String]) throws(SimulatedMachineError) -> SimulatedMachine
    {
        try SimulatedMachine(parsing: environment[variable] ?? "")
    }

    /// The machine a `TIDE_MACHINE` value names.
    public init(parsing text: String) throws(SimulatedMachineError) {
        self.init()
        let settings = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" })
        var index = 0
        while index < settings.count {
            let setting = settings[index]
            index += 1
            guard let equals = setting.firstIndex(of: "=") else { throw SimulatedMachineError(setting: String(setting), problem: "is not NAME=VALUE") }
            let name = setting[..<equals]
            var value = String(setting[setting.index(after: equals)...])
            switch name {
            case "noise":
                noise = try ScoreNoise(parsing: value)
            case "costs":
                // The list of four costs is itself separated by commas: take the settings that follow.
                while value.split(separator: ",").count < 4, index < settings.count, !settings[index].contains("=") {
                    value += "," + settings[index]
                    index += 1
                }
                checkCosts = try CheckCosts(parsing: value)
            case "batch-drift":
                guard let amount = Float(value), amount.isFinite, amount > 0, amount <= 10 else {
                    throw SimulatedMachineError(setting: String(setting), problem: "needs an amount of logits above 0, at most 10")
                }
                batchDrift = BatchDrift(amount: amount)
            default:
                throw SimulatedMachineError(setting: String(setting), problem: "names nothing to simulate (noise, costs, batch-drift)")
            }
        }
    }

    /// The settings as `TIDE_MACHINE` writes them.
    public var description: String {
        var settings: [String] = []
        if let noise { settings.append("noise=\(noise.seed)*\(noise.scale)") }
        if let checkCosts { settings.append("costs=" + checkCosts.costs.map { "\($0)" }.joined(separator: ",")) }
        if let batchDrift { settings.append("batch-drift=\(batchDrift.amount)") }
        return settings.isEmpty ? "this machine" : settings.joined(separator: " ")
    }

    /// Moves the scores of one decode's outputs as this machine computes them. `rows` are the
    /// decode's entries whose scores were kept, in batch order; `scores(i)` gives entry `i`'s row.
    /// A row's noise depends on its position and token alone; the batch drift on whether its
    /// sequence has other rows in the same decode.
    public func perturb(rows: [ScoredEntry], vocabularySize: Int, scores: (Int) -> UnsafeMutablePointer<Float>?) {
        guard noise != nil || batchDrift != nil else { return }
        var perSequence: [Int32: Int] = [:]
        if batchDrift != nil { for row in rows { perSequence[row.sequence, default: 0] += 1 } }
        for row in rows {
            guard let pointer = scores(row.index) else { continue }
            let buffer = UnsafeMutableBufferPointer(start: pointer, count: vocabularySize)
            noise?.apply(to: buffer, position: row.position, token: row.token)
            if let batchDrift, perSequence[row.sequence, default: 0] > 1 {
                batchDrift.apply(to: buffer, position: row.position, token: row.token)
            }
        }
    }
}

/// An entry of a decode whose scores are kept: where its row is, and what it scores.
public struct ScoredEntry: Sendable, Hashable {
    /// The entry's index in the batch (what llama.cpp's `llama_get_logits_ith` takes).
    public var index: Int
    /// The sequence it belongs to.
    public var sequence: Int32
    /// Its position in the sequence.
    public var position: Int
    /// The token decoded there: the row scores the token after it.
    public var token: Int32

    /// An entry.
    public init(index: Int, sequence: Int32, position: Int, token: Int32) {
        self.index = index
        self.sequence = sequence
        self.position = position
        self.token = token
    }
}

/// Why a `TIDE_MACHINE` value cannot be read.
public struct SimulatedMachineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The setting at fault.
    public var setting: String
    /// What is wrong with it.
    public var problem: String

    public var description: String {
        "\(SimulatedMachine.variable): '\(setting)' \(problem); write settings such as "
            + "'noise=7', 'noise=7*0.5', 'costs=cheap', 'costs=dear', 'costs=1.2,1.5,2,3', 'batch-drift=0.3' "
            + "(docs/conversations.md, \"Another machine, simulated\"), or unset it"
    }
}

extension CheckCosts {
    /// Checks that cost next to nothing, as on a GPU: drafting pays whenever a token is accepted.
    public static let cheap = CheckCosts(chunks: [2, 4, 8, 15], costs: [1.02, 1.05, 1.1, 1.2])
    /// Checks that cost as much as decoding their tokens one by one: drafting never pays.
    public static let dear = CheckCosts(chunks: [2, 4, 8, 15], costs: [2, 4, 8, 15])

    /// Costs as `TIDE_MACHINE` gives them: `cheap`, `dear`, or four costs for chunks of 2, 4, 8
    /// and 15 tokens, each at least 1, none below the one before.
    init(parsing text: String) throws(SimulatedMachineError) {
        switch text {
        case "cheap": self = .cheap
        case "dear": self = .dear
        default:
            let costs = text.split(separator: ",").compactMap { Double($0) }
            guard costs.count == 4, text.split(separator: ",").count == 4, costs.allSatisfy({ $0.isFinite && $0 >= 1 && $0 <= 1000 }),
                  zip(costs, costs.dropFirst()).allSatisfy({ $0 <= $1 }) else {
                throw SimulatedMachineError(setting: "costs=" + text,
                                            problem: "needs cheap, dear, or four costs from 1 to 1000, not decreasing, for chunks of 2, 4, 8 and 15 tokens")
            }
            self = CheckCosts(chunks: [2, 4, 8, 15], costs: costs)
        }
    }
}
