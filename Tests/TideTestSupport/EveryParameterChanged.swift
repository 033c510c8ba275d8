import TideCore

extension GenerationParameters {
    /// Every generation parameter away from its default.
    public static var everyOneChanged: GenerationParameters {
        var parameters = GenerationParameters()
        parameters.temperature = 0.3
        parameters.topK = 7
        parameters.topP = 0.8
        parameters.minP = 0.1
        parameters.repeatPenalty = 1.2
        parameters.repeatLastN = 32
        parameters.presencePenalty = 0.5
        parameters.frequencyPenalty = -0.25
        parameters.logitBias = [LogitBias(.token(15), -100), LogitBias(.text("a \"b\"=c"), -.infinity)]
        parameters.dryMultiplier = 0.8
        parameters.dryBase = 2
        parameters.dryAllowedLength = 3
        parameters.dryPenaltyLastN = 128
        parameters.drySequenceBreakers = ["\n", "end of it"]
        parameters.xtcProbability = 0.5
        parameters.xtcThreshold = 0.2
        parameters.typicalP = 0.9
        parameters.topNSigma = 1.5
        parameters.mirostat = 2
        parameters.mirostatTau = 3
        parameters.mirostatEta = 0.2
        parameters.seed = 42
        parameters.maxTokens = 99
        parameters.stop = ["END", "two words"]
        parameters.toolChoice = .named("lookup")
        parameters.maxToolRounds = 3
        parameters.maxToolResult = 4096
        parameters.parallelToolCalls = false
        parameters.logprobs = 5
        parameters.reasoningBudget = 100
        return parameters
    }
}
