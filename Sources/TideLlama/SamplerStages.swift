import CLlama
import Foundation
import TideCore

/// One stage of the sampler chain: the llama.cpp sampler that some generation parameters call
/// for. A new sampler is its parameters' declarations (``TideCore/GenerationParameters``) and a
/// stage here, in its place in ``SamplerStages/order``.
protocol SamplerStage: Sendable {
    /// Whether `parameters` turn the stage on.
    static func isOn(_ parameters: GenerationParameters) -> Bool
    /// The stage's llama.cpp sampler; an error names a value only the model can check.
    static func sampler(_ parameters: GenerationParameters, model: LlamaModel) throws(InvalidParameterError)
        -> UnsafeMutablePointer<llama_sampler>?
    /// Whether the stage always keeps the best-scored token (a cut, which greedy decoding can leave
    /// out when no stage after it could change the best).
    static var keepsBest: Bool { get }
    /// How many tokens before the reply the stage looks at (the prompt's tail it is given).
    static func history(_ parameters: GenerationParameters) -> Int
    /// Whether, under `parameters`, the stage only ever lowers a token's score, each token's by
    /// what that token alone decides (so that applying it to one candidate gives that token's
    /// score as over the whole vocabulary): then a token whose score after the stage still beats
    /// every other token's before it is the best after it.
    static func onlyLowers(_ parameters: GenerationParameters) -> Bool
    /// At most how many tokens' scores the stage changes at one step under `parameters`, when a
    /// bound holds (the tokens it penalises are among the last it saw); `nil` when none does.
    static func changesAtMost(_ parameters: GenerationParameters, model: LlamaModel) -> Int?
}

extension SamplerStage {
    static var keepsBest: Bool { false }
    static func history(_ parameters: GenerationParameters) -> Int { 0 }
    static func onlyLowers(_ parameters: GenerationParameters) -> Bool { false }
    static func changesAtMost(_ parameters: GenerationParameters, model: LlamaModel) -> Int? { nil }
}

/// The stages in llama.cpp's default order, as `common_sampler` (and so llama-server) builds it:
/// logit bias, penalties, DRY, top-n-σ, top-k, typical-p, top-p, min-p, XTC, then the
/// temperature and a random draw (or, at temperature 0, the best token). Mirostat replaces every
/// stage after the logit bias, after the temperature. A reply's ``SamplingPlan`` says which it turns on.
enum SamplerStages {
    static let order: [any SamplerStage.Type] = [LogitBiasStage.self, PenaltiesStage.self, DRYStage.self, TopNSigmaStage.self,
                                                 TopKStage.self, TypicalStage.self, TopPStage.self, MinPStage.self, XTCStage.self]
}

/// `logit-bias`: biases added to tokens' scores, a text's to each of its tokens.
enum LogitBiasStage: SamplerStage {
    static func isOn(_ parameters: GenerationParameters) -> Bool { !parameters.logitBias.isEmpty }

    static func sampler(_ parameters: GenerationParameters, model: LlamaModel) throws(InvalidParameterError)
        -> UnsafeMutablePointer<llama_sampler>?
    {
        let biases = try tokenBiases(parameters, model: model)
        return llama_sampler_init_logit_bias(Int32(model.facts.vocabularySize), Int32(biases.count), biases)
    }

    /// One bias per token the biases name (a text's, each of its tokens), their sum where several
    /// name it: llama.cpp adds every bias of a token over the whole vocabulary but only the first
    /// over a few candidates, which the check of a recorded token's score after the stages scores
    /// (``SamplerChain/confirmsGreedyChoice(_:in:)``) and a choice among the graph's candidates reads.
    static func tokenBiases(_ parameters: GenerationParameters, model: LlamaModel) throws(InvalidParameterError) -> [llama_logit_bias] {
        var biases: [llama_logit_bias] = []
        let size = model.facts.vocabularySize
        for bias in parameters.logitBias {
            switch bias.target {
            case .token(let id):
                guard Int(id) < size else {
                    throw InvalidParameterError(name: "logit-bias", value: "\(id)", requirement: "a token id of this model, from 0 to \(size - 1)")
                }
                biases.append(llama_logit_bias(token: id, bias: Float(bias.bias)))
            case .text(let text):
                let tokens: [Int32]
                do {
                    tokens = try model.tokenize(text)
                } catch {
                    throw InvalidParameterError(name: "logit-bias", value: QuotedString.quote(text), requirement: "text the model can tokenize (\(error))")
                }
                guard !tokens.isEmpty else {
                    throw InvalidParameterError(name: "logit-bias", value: QuotedString.quote(text), requirement: "a text of one token or more")
                }
                biases += tokens.map { llama_logit_bias(token: $0, bias: Float(bias.bias)) }
            }
        }
        var summed: [Int32: Float] = [:]
        for bias in biases { summed[bias.token, default: 0] += bias.bias }
        return biases.compactMap { bias in summed.removeValue(forKey: bias.token).map { llama_logit_bias(token: bias.token, bias: $0) } }
    }

    static func onlyLowers(_ parameters: GenerationParameters) -> Bool { parameters.logitBias.allSatisfy { $0.bias <= 0 } }

    /// The tokens the biases name.
    static func changesAtMost(_ parameters: GenerationParameters, model: LlamaModel) -> Int? {
        (try? tokenBiases(parameters, model: model))?.count
    }
}

/// `repeat-penalty`, `presence-penalty` and `frequency-penalty` over the last `repeat-last-n` tokens.
enum PenaltiesStage: SamplerStage {
    static func isOn(_ parameters: GenerationParameters) -> Bool {
        parameters.repeatLastN != 0 && (parameters.repeatPenalty != 1 || parameters.presencePenalty != 0 || parameters.frequencyPenalty != 0)
    }

    static func sampler(_ parameters: GenerationParameters, model: LlamaModel) -> UnsafeMutablePointer<llama_sampler>? {
        llama_sampler_init_penalties(Int32(model.facts.vocabularySize), Int32(parameters.repeatLastN), Float(parameters.repeatPenalty),
                                     Float(parameters.frequencyPenalty), Float(parameters.presencePenalty))
    }

    static func history(_ parameters: GenerationParameters) -> Int { parameters.repeatLastN }

    static func onlyLowers(_ parameters: GenerationParameters) -> Bool {
        parameters.repeatPenalty >= 1 && parameters.presencePenalty >= 0 && parameters.frequencyPenalty >= 0
    }

    /// The tokens among the last `repeat-last-n`.
    static func changesAtMost(_ parameters: GenerationParameters, model: LlamaModel) -> Int? { parameters.repeatLastN }
}

/// DRY: `dry-multiplier`, `dry-base`, `dry-allowed-length`, `dry-penalty-last-n`, `dry-sequence-breakers`.
enum DRYStage: SamplerStage {
    static func isOn(_ parameters: GenerationParameters) -> Bool { parameters.dryMultiplier > 0 && parameters.dryPenaltyLastN != 0 }

    /// A copy of the model's DRY sampler of these settings, made once (``DRYSamplerCache``).
    static func sampler(_ parameters: GenerationParameters, model: LlamaModel) -> UnsafeMutablePointer<llama_sampler>? {
        model.drySamplers.sampler(DRYSamplerCache.Settings(breakers: parameters.drySequenceBreakers, multiplier: Float(parameters.dryMultiplier),
                                                           base: Float(parameters.dryBase), allowedLength: Int32(parameters.dryAllowedLength),
                                                           penaltyLastN: Int32(parameters.dryPenaltyLastN)),
                                  vocab: model.vocab)
    }

    static func history(_ parameters: GenerationParameters) -> Int { parameters.dryPenaltyLastN }

    /// Its penalty, the multiplier times a power of the base, is subtracted.
    static func onlyLowers(_ parameters: GenerationParameters) -> Bool { true }

    /// The tokens that followed a repeat among the last `dry-penalty-last-n`.
    static func changesAtMost(_ parameters: GenerationParameters, model: LlamaModel) -> Int? { parameters.dryPenaltyLastN }
}

/// `top-n-sigma`.
enum TopNSigmaStage: SamplerStage {
    static func isOn(_ parameters: GenerationParameters) -> Bool { parameters.topNSigma > 0 }
    static func sampler(_ parameters: GenerationParameters, model: LlamaModel) -> UnsafeMutablePointer<llama_sampler>? {
        llama_sampler_init_top_n_sigma(Float(parameters.topNSigma))
    }
    static var keepsBest: Bool { true }
}

/// `top-k`.
enum TopKStage: SamplerStage {
    static func isOn(_ parameters: GenerationParameters) -> Bool { parameters.topK > 0 }
    static func sampler(_ parameters: GenerationParameters, model: LlamaModel) -> UnsafeMutablePointer<llama_sampler>? {
        llama_sampler_init_top_k(Int32(parameters.topK))
    }
    static var keepsBest: Bool { true }
}

/// `typical-p` (which may drop the best token: it keeps the tokens nearest the expected surprise).
enum TypicalStage: SamplerStage {
    static func isOn(_ parameters: GenerationParameters) -> Bool { parameters.typicalP < 1 }
    static func sampler(_ parameters: GenerationParameters, model: LlamaModel) -> UnsafeMutablePointer<llama_sampler>? {
        llama_sampler_init_typical(Float(parameters.typicalP), 0)
    }
}

/// `top-p`.
enum TopPStage: SamplerStage {
    static func isOn(_ parameters: GenerationParameters) -> Bool { parameters.topP < 1 }
    static func sampler(_ parameters: GenerationParameters, model: LlamaModel) -> UnsafeMutablePointer<llama_sampler>? {
        llama_sampler_init_top_p(Float(parameters.topP), 1)
    }
    static var keepsBest: Bool { true }
}

/// `min-p`.
enum MinPStage: SamplerStage {
    static func isOn(_ parameters: GenerationParameters) -> Bool { parameters.minP > 0 }
    static func sampler(_ parameters: GenerationParameters, model: LlamaModel) -> UnsafeMutablePointer<llama_sampler>? {
        llama_sampler_init_min_p(Float(parameters.minP), 1)
    }
    static var keepsBest: Bool { true }
}

/// XTC: `xtc-probability`, `xtc-threshold` (it removes the best tokens, at random).
enum XTCStage: SamplerStage {
    static func isOn(_ parameters: GenerationParameters) -> Bool { parameters.removesTopTokens }
    static func sampler(_ parameters: GenerationParameters, model: LlamaModel) -> UnsafeMutablePointer<llama_sampler>? {
        llama_sampler_init_xtc(Float(parameters.xtcProbability), Float(parameters.xtcThreshold), 0, parameters.seed ?? UInt32.max)
    }
}
