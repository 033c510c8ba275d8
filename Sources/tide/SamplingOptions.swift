import ArgumentParser
import TideCore

/// Generation parameters on the command line.
struct SamplingOptions: ParsableArguments {
    @Option(help: "Sampling temperature; 0 is greedy (default: 0.6).")
    var temperature: Double?

    @Option(name: .customLong("top-p"), help: "Nucleus sampling threshold in (0, 1] (default: 0.95).")
    var topP: Double?

    @Option(name: .customLong("top-k"), help: "Sample among the k most likely tokens; 0 disables (default: 40).")
    var topK: Int?

    @Option(name: .customLong("min-p"), help: "Minimum probability relative to the best token (default: 0.05).")
    var minP: Double?

    @Option(name: .customLong("repeat-penalty"), help: "Penalty for recently seen tokens; 1 disables (default: 1).")
    var repeatPenalty: Double?

    @Option(name: .customLong("repeat-last-n"), help: "How many recent tokens the penalty looks at (default: 64).")
    var repeatLastN: Int?

    @Option(help: "Random seed, for reproducible sampling.")
    var seed: UInt32?

    @Option(name: .customLong("max-tokens"), help: "The most tokens in a reply (default: 1024).")
    var maxTokens: Int?

    @Option(help: "A string that ends the reply (repeatable); it is never shown.")
    var stop: [String] = []

    @Option(name: .customLong("max-rewinds"),
            help: "The most times plugins may take back the end of one reply; past it the reply ends (default: 32).")
    var maxRewinds: Int?

    /// The parameters, validated: a bad value is a usage error that names it.
    func parameters() throws -> GenerationParameters {
        var parameters = GenerationParameters()
        if let temperature { parameters.temperature = temperature }
        if let topP { parameters.topP = topP }
        if let topK { parameters.topK = topK }
        if let minP { parameters.minP = minP }
        if let repeatPenalty { parameters.repeatPenalty = repeatPenalty }
        if let repeatLastN { parameters.repeatLastN = repeatLastN }
        parameters.seed = seed
        if let maxTokens { parameters.maxTokens = maxTokens }
        parameters.stop = stop
        if let maxRewinds { parameters.maxRewinds = maxRewinds }
        do {
            try parameters.validate()
        } catch {
            throw ValidationError("--\(error.name) must be \(error.requirement), not \(error.value)")
        }
        return parameters
    }

    func validate() throws { _ = try parameters() }
}
