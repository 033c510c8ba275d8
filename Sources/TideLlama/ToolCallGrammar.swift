import CLlama
import TideCore

/// The grammar sampler of the tool calls offered in a reply.
extension SamplerChain {
    /// The grammar of the tool calls: from the first token when a call is required (with its
    /// text, for steering), else lazily, from the calls' marker on.
    static func toolGrammar(_ parameters: GenerationParameters, reader: any ToolCallReader, model: LlamaModel)
        throws(ToolsUnavailable) -> (UnsafeMutablePointer<llama_sampler>, String?)
    {
        let text: String
        do {
            text = try reader.callGrammar(for: parameters.tools, choice: parameters.toolChoice, parallel: parameters.parallelToolCalls)
        } catch {
            throw .unenforceable(error.description)
        }
        let sampler: UnsafeMutablePointer<llama_sampler>?
        switch parameters.toolChoice {
        case .required, .named:
            sampler = llama_sampler_init_grammar(model.vocab, text, "root")
        case .auto, .none:
            sampler = reader.lazyTrigger.withCString { trigger in
                var patterns: [UnsafePointer<CChar>?] = [trigger]
                return llama_sampler_init_grammar_lazy_patterns(model.vocab, text, "root", &patterns, 1, nil, 0)
            }
        }
        guard let sampler else { throw .unenforceable("llama.cpp refused the calls' grammar; its log above says where") }
        switch parameters.toolChoice {
        case .required, .named: return (sampler, text)
        case .auto, .none: return (sampler, nil)
        }
    }
}
