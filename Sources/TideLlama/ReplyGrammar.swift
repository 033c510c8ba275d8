import CLlama
import TideCore

/// The grammar a reply must follow: its format's, or its tool calls' (``toolGrammar(_:reader:model:)``).
extension SamplerChain {
    /// The grammar sampler of the reply (the tools' calls, as `reader` writes them, or the
    /// format's), and, unless `steeringBudget` is off, what steers it to finish within
    /// `max-tokens`; none for free text. Throws when llama.cpp refuses the grammar.
    static func replyGrammar(_ parameters: GenerationParameters, model: LlamaModel, reader: any ToolCallReader, steeringBudget: Bool) throws
        -> (UnsafeMutablePointer<llama_sampler>?, BudgetSteerer?)
    {
        if parameters.offersTools {
            let (sampler, text) = try toolGrammar(parameters, reader: reader, model: model)
            // A call required from the first token is steered to close within max-tokens, as a format is.
            return (sampler, steeringBudget ? text.flatMap { BudgetSteerer(grammar: $0, maxTokens: parameters.maxTokens) } : nil)
        }
        guard let format = parameters.format else { return (nil, nil) }
        guard let grammar = llama_sampler_init_grammar(model.vocab, format.grammar, "root") else {
            throw LlamaError.grammarRefused(format.description)
        }
        return (grammar, steeringBudget ? BudgetSteerer(grammar: format.grammar, maxTokens: parameters.maxTokens) : nil)
    }
}
