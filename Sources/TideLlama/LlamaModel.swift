import CLlama
import Synchronization
import Foundation
import TideCore
import TideFormat

/// Model weights and vocabulary loaded by llama.cpp, shared by any number of contexts.
///
/// ```swift
/// let model = try LlamaModel.load(path: "SmolLM2-135M-Instruct.Q4_1.gguf") { print($0) }
/// print(model.facts.architecture)  // "llama"
/// ```
public final class LlamaModel: @unchecked Sendable {
    // llama.cpp's model and vocabulary are read-only after loading and safe to share.
    /// The llama.cpp model, for code that calls llama.cpp's C API on it directly (the bare
    /// llama.cpp baselines of `tide bench`).
    public let pointer: OpaquePointer
    let vocab: OpaquePointer
    /// The file the model was loaded from.
    public let path: String
    /// What the model is.
    public let facts: ModelFacts
    /// Where prompts are cut to be tokenized in pieces.
    let splitter: SpecialTokenSplitter
    /// The tokens that end generation (llama.cpp's end-of-generation set), in id order.
    let endOfGenerationTokens: [Int32]
    /// How the model, its prompts rendered with `template`, is offered tools and writes its calls:
    /// its family's format, as the template tells (docs/tools.md lists them).
    public func toolCallFormat(template: ChatTemplate) -> ToolCallFormat {
        switch template {
        case .named(let name): .inferred(fromTemplate: name)
        case .model: .inferred(fromTemplate: facts.chatTemplate ?? "chatml")
        case .raw: .hermes
        }
    }
    /// The family whose prompts Tide writes itself for the model's own template, if it is one.
    let family: TemplateFamily?
    /// The name of that family (`Phi-4-mini`), or `nil` when llama.cpp renders the template.
    public var templateFamilyName: String? { family?.name }
    /// The tags the model reasons between, when it thinks: its own template speaks of `<think>` and
    /// `</think>` (Qwen 3, DeepSeek R1), or its vocabulary has both as tokens of their own (a model
    /// whose template does not say); whether its prompt opens the block itself (DeepSeek R1's).
    /// A `raw` prompt is continued as text: it has none.
    public func reasoningMarkers(template: ChatTemplate) -> ReasoningMarkers? {
        let markers = ReasoningMarkers(openedByPrompt: template == .model && family == .deepSeekR1)
        guard template != .raw else { return nil }
        if let text = facts.chatTemplate, text.contains(markers.open), text.contains(markers.close) { return markers }
        let single = [markers.open, markers.close].allSatisfy { tag in
            ((try? tokenize(tag, parseSpecial: true)) ?? []).count == 1
        }
        return single ? markers : nil
    }

    /// What llama.cpp's batches do (``BatchFacts``), by thread count and attention kernel, once probed.
    let probedBatches = Mutex<[String: BatchFacts]>([:])
    /// The DRY samplers of recent settings, copied for the replies that ask for them again.
    let drySamplers = DRYSamplerCache()
    /// Where the model runs: the CPU, or how many of its layers a GPU holds.
    public let placement: ModelPlacement

    /// A model `pointer` loaded from `path`; one loaded for its vocabulary only has no
    /// hyperparameters to ask (llama.cpp aborts), so no layers.
    private init(pointer: OpaquePointer, path: String, plan: OffloadPlan, gpu: GPUDevice?, vocabularyOnly: Bool = false) {
        self.pointer = pointer
        self.vocab = llama_model_get_vocab(pointer)
        self.path = path
        let layers = vocabularyOnly ? 0 : ModelShape(loaded: pointer).layers
        let offloaded = gpu == nil ? 0 : plan.gpuLayers < 0 ? layers : min(plan.gpuLayers, layers)
        placement = ModelPlacement(gpu: offloaded > 0 ? gpu?.name : nil, gpuLayers: offloaded, layers: layers, note: plan.note)
        self.facts = Self.readFacts(pointer, vocab: vocab, path: path)
        family = facts.chatTemplate.flatMap(TemplateFamily.init(recognizing:))
        splitter = SpecialTokenSplitter(vocab: vocab)
        let vocab = vocab
        endOfGenerationTokens = (0..<Int32(facts.vocabularySize)).filter { llama_vocab_is_eog(vocab, $0) }
    }

    /// What plugins and status displays are told about this model, for a context of `contextSize`.
    func description(contextSize: Int) -> ModelDescription {
        ModelDescription(name: facts.name, backend: "llama.cpp", architecture: facts.architecture,
                         contextSize: contextSize, trainedContextLength: facts.trainedContextLength,
                         vocabularySize: facts.vocabularySize, endTokens: endOfGenerationTokens,
                         placement: placement.description)
    }

    deinit { llama_model_free(pointer) }

    /// Loads a GGUF file.
    /// - Parameters:
    ///   - gpuLayers: layers to offload to a GPU (``OffloadPlan``): `nil` for every layer that
    ///     fits in the GPU's free memory, `-1` for every layer, `0` for none. Without a GPU
    ///     (a build for the CPU alone), the model runs on the CPU whatever this says.
    ///   - contextSize: the context the model will get, for the KV cache's share of the GPU.
    ///   - progress: called with the fraction loaded, from 0 to 1.
    public static func load(path: String, gpuLayers: Int? = nil, contextSize: Int = 4096,
                            progress: (@Sendable (Double) -> Void)? = nil) throws(LlamaError) -> LlamaModel
    {
        _ = try GGUFHeader(path: path)
        LlamaRuntime.ensureInitialised()
        let gpu = GPUDevice.first
        let plan = try offloadPlan(path: path, requested: gpuLayers, gpu: gpu, contextSize: contextSize)
        LlamaRuntime.clearErrors()
        var parameters = llama_model_default_params()
        parameters.n_gpu_layers = Int32(clamping: plan.gpuLayers)
        let box = progress.map { Unmanaged.passRetained(ProgressBox($0)) }
        defer { box?.release() }
        if let box {
            parameters.progress_callback = { fraction, context in
                Unmanaged<ProgressBox>.fromOpaque(context!).takeUnretainedValue().report(Double(fraction))
                return true
            }
            parameters.progress_callback_user_data = box.toOpaque()
        }
        guard let pointer = llama_model_load_from_file(path, parameters) else {
            throw .loadFailed(path: path, detail: LlamaRuntime.errors())
        }
        return LlamaModel(pointer: pointer, path: path, plan: plan, gpu: gpu)
    }

    /// Loads a GGUF file's vocabulary and metadata without its weights (fast, and for a
    /// vocabulary-only file too): a model that tokenizes, but cannot decode.
    public static func loadVocabulary(path: String) throws(LlamaError) -> LlamaModel {
        _ = try GGUFHeader(path: path)
        LlamaRuntime.ensureInitialised()
        LlamaRuntime.clearErrors()
        var parameters = llama_model_default_params()
        parameters.vocab_only = true
        parameters.n_gpu_layers = 0
        guard let pointer = llama_model_load_from_file(path, parameters) else {
            throw .loadFailed(path: path, detail: LlamaRuntime.errors())
        }
        return LlamaModel(pointer: pointer, path: path, plan: OffloadPlan.make(requested: 0, gpu: nil, layers: 0, modelBytes: 0, cacheBytes: 0),
                          gpu: nil, vocabularyOnly: true)
    }

    /// The offload plan for the file at `path`. Fitting it to the GPU's memory reads the model's
    /// shape first (its metadata and vocabulary, not its weights).
    private static func offloadPlan(path: String, requested: Int?, gpu: GPUDevice?, contextSize: Int)
        throws(LlamaError) -> OffloadPlan
    {
        guard let gpu, requested == nil else {
            return OffloadPlan.make(requested: requested, gpu: gpu, layers: 0, modelBytes: 0, cacheBytes: 0)
        }
        let dimensions = try shape(ofFile: path)
        let size = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
        return OffloadPlan.make(requested: nil, gpu: gpu, layers: dimensions.layers, modelBytes: size,
                                cacheBytes: dimensions.kvCacheBytes(contextSize: contextSize))
    }

    /// The shape of the model in the file at `path`, read with its vocabulary but not its weights.
    static func shape(ofFile path: String) throws(LlamaError) -> ModelShape {
        try shapeAndTrainedLength(ofFile: path).shape
    }

    /// The shape of the model in the file at `path` and the context it was trained on (`0` when
    /// the file does not say), read with its vocabulary but not its weights.
    static func shapeAndTrainedLength(ofFile path: String) throws(LlamaError) -> (shape: ModelShape, trainedLength: Int) {
        var parameters = llama_model_default_params()
        parameters.vocab_only = true
        LlamaRuntime.clearErrors()
        guard let model = llama_model_load_from_file(path, parameters) else {
            throw .loadFailed(path: path, detail: LlamaRuntime.errors())
        }
        defer { llama_model_free(model) }
        func metadata(_ key: String) -> String? { metadataValue(model, key) }
        guard let shape = ModelShape(metadata: metadata) else {
            throw .loadFailed(path: path, detail: "its metadata does not say how many layers the model has (no block_count)")
        }
        let trained = metadata("general.architecture").flatMap { metadata("\($0).context_length") }.flatMap { Int($0) } ?? 0
        return (shape, trained)
    }

    /// The shape of this model, from llama.cpp's hyperparameters.
    var shape: ModelShape { ModelShape(loaded: pointer) }

    /// Splits text into tokens.
    /// - Parameters:
    ///   - addSpecial: add the model's BOS token if it wants one.
    ///   - parseSpecial: read control tokens written as text (`<|im_start|>`) as such.
    public func tokenize(_ text: String, addSpecial: Bool = false, parseSpecial: Bool = false) throws(LlamaError)
        -> [Int32]
    {
        try tokenize(utf8: Array(text.utf8)[...], addSpecial: addSpecial, parseSpecial: parseSpecial)
    }

    /// Splits UTF-8 text into tokens, as ``tokenize(_:addSpecial:parseSpecial:)``.
    func tokenize(utf8: ArraySlice<UInt8>, addSpecial: Bool, parseSpecial: Bool) throws(LlamaError) -> [Int32] {
        let utf8 = Array(utf8)
        var tokens = [Int32](repeating: 0, count: utf8.count + 2)
        var count = Int(llama_tokenize(vocab, utf8, Int32(utf8.count), &tokens, Int32(tokens.count), addSpecial, parseSpecial))
        if count < 0, count != Int(Int32.min) {
            tokens = [Int32](repeating: 0, count: -count)
            count = Int(llama_tokenize(vocab, utf8, Int32(utf8.count), &tokens, Int32(tokens.count), addSpecial, parseSpecial))
        }
        guard count >= 0 else { throw .tokenizationFailed(characters: String(decoding: utf8, as: UTF8.self).count) }
        return Array(tokens[..<count])
    }

    /// Tokens of `utf8` where it continues a text (the rest of a reply), without the space that
    /// SentencePiece tokenizers (Phi-3's, Llama 2's) put before a text's start: tokenized after a
    /// line break, whose tokens are then left out (as tokenized alone, where they do not merge).
    func continuationTokens(utf8: ArraySlice<UInt8>) throws(LlamaError) -> [Int32] {
        guard llama_vocab_type(vocab) == LLAMA_VOCAB_TYPE_SPM else {
            return try tokenize(utf8: utf8, addSpecial: false, parseSpecial: false)
        }
        let lineBreak = try tokenize(utf8: [0x0A], addSpecial: false, parseSpecial: false)
        let tokens = try tokenize(utf8: [0x0A] + utf8, addSpecial: false, parseSpecial: false)
        guard tokens.starts(with: lineBreak) else { return try tokenize(utf8: utf8, addSpecial: false, parseSpecial: false) }
        return Array(tokens.dropFirst(lineBreak.count))
    }

    /// The bytes of a token's text (control tokens included), possibly part of a UTF-8 character.
    public func tokenBytes(_ token: Int32) -> [UInt8] {
        var buffer = [CChar](repeating: 0, count: 64)
        var length = Int(llama_token_to_piece(vocab, token, &buffer, Int32(buffer.count), 0, true))
        if length < 0 {
            buffer = [CChar](repeating: 0, count: -length)
            length = Int(llama_token_to_piece(vocab, token, &buffer, Int32(buffer.count), 0, true))
        }
        return buffer[..<max(0, length)].map { UInt8(bitPattern: $0) }
    }

    /// A token's text, with invalid UTF-8 shown as U+FFFD.
    public func tokenText(_ token: Int32) -> String {
        String(decoding: tokenBytes(token), as: UTF8.self)
    }

    /// The text of a token sequence.
    public func detokenize(_ tokens: [Int32]) -> String {
        var assembler = UTF8Assembler()
        let text = tokens.map { assembler.append(tokenBytes($0)) }.joined()
        return text + assembler.finish()
    }

    /// Whether a token ends generation (EOS, EOT and the like).
    public func isEndOfGeneration(_ token: Int32) -> Bool { llama_vocab_is_eog(vocab, token) }

    /// Whether a context's cache can drop its last tokens (to take back part of a reply): not
    /// for recurrent or hybrid models, whose state cannot be cut at a position.
    public var canDropCachedTokens: Bool { !llama_model_is_recurrent(pointer) && !llama_model_is_hybrid(pointer) }

    /// Bytes the KV cache takes for `contextSize` tokens (f16 keys and values in every layer).
    public func kvCacheBytes(contextSize: Int, key: KVCacheType = .f16, value: KVCacheType = .f16) -> Int64 {
        shape.kvCacheBytes(contextSize: contextSize, key: key, value: value)
    }

    /// Whether `token` is a valid id in this vocabulary.
    public func isValidToken(_ token: Int32) -> Bool { token >= 0 && Int(token) < facts.vocabularySize }

    /// Renders messages with `template` and ends with the start of an assistant turn; tool results
    /// take the role of `toolFormat` (by default, the template's own format's).
    public func renderPrompt(_ messages: [ChatMessage], template: ChatTemplate, toolFormat: ToolCallFormat? = nil) throws(LlamaError)
        -> String
    {
        let toolRole = (toolFormat ?? toolCallFormat(template: template)).reader.toolRole
        switch template {
        case .named(let name):
            return try ChatTemplate.render(messages, with: name, toolRole: toolRole)
        case .model:
            guard let family else { return try ChatTemplate.render(messages, with: facts.chatTemplate ?? "chatml", toolRole: toolRole) }
            try ChatTemplate.refuseNULs(in: messages)
            return family.render(messages, toolRole: toolRole)
        case .raw:
            return messages.map(\.content).filter { !$0.isEmpty }.joined(separator: "\n\n")
        }
    }

    private static func readFacts(_ model: OpaquePointer, vocab: OpaquePointer, path: String) -> ModelFacts {
        func metadata(_ key: String) -> String? { metadataValue(model, key) }
        var description = [CChar](repeating: 0, count: 256)
        _ = llama_model_desc(model, &description, description.count)
        // llama_model_desc is "<architecture> <size> <file type>"; the file type may contain spaces.
        let words = String(decoding: description.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .split(separator: " ")
        return ModelFacts(
            name: metadata("general.name") ?? URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent,
            architecture: metadata("general.architecture") ?? words.first.map(String.init) ?? "unknown",
            parameterCount: llama_model_n_params(model),
            weightBytes: llama_model_size(model),
            quantization: words.dropFirst(2).joined(separator: " "),
            trainedContextLength: Int(llama_model_n_ctx_train(model)),
            vocabularySize: Int(llama_vocab_n_tokens(vocab)),
            chatTemplate: llama_model_chat_template(model, nil).map { String(cString: $0) },
            pooling: metadata("general.architecture").flatMap { metadata("\($0).pooling_type") }.flatMap(Int.init)
                .map { ModelFacts.poolingNames.indices.contains($0) ? ModelFacts.poolingNames[$0] : "type \($0)" }
        )
    }
}

/// Carries a Swift closure through llama.cpp's C progress callback.
private final class ProgressBox {
    let report: @Sendable (Double) -> Void
    init(_ report: @escaping @Sendable (Double) -> Void) { self.report = report }
}

extension LlamaModel: Vocabulary {
    public var vocabularySize: Int { facts.vocabularySize }
    public func tokens(of text: String) -> [Int32] { (try? tokenize(text)) ?? [] }
    public func text(of tokens: [Int32]) -> String { detokenize(tokens.filter(isValidToken)) }
}

/// A metadata value of `model`'s file as text (arrays are not kept); `nil` when the file lacks it.
private func metadataValue(_ model: OpaquePointer, _ key: String) -> String? {
    var buffer = [CChar](repeating: 0, count: 256)
    let length = llama_model_meta_val_str(model, key, &buffer, buffer.count)
    guard length >= 0 else { return nil }
    return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
