import TideCore

/// What a model entry sets up for a conversation unless the user says otherwise — what an
/// Ollama Modelfile gives: a system prompt, generation parameters and plugins. Command-line
/// options, `/set` and a script's directives all apply over them.
///
/// In `models.json` (and `tide models show --json`):
///
/// ```json
/// {"system_prompt": "Answer in one sentence.",
///  "parameters": {"temperature": 0.2, "repeat-penalty": 1.1, "stop": ["\n\n"], "seed": null},
///  "plugins": ["stop-after-sentences sentences=2"], "mcp": ["time: mcp-server-time"], "gpu_layers": 20,
///  "tool_format": "hermes"}
/// ```
public struct ModelDefaults: Sendable, Hashable {
    /// The system prompt when the user gives none; `nil` to keep the underlying model's.
    public var systemPrompt: String?
    /// Parameters over Tide's defaults, in order.
    public var parameters: [ParameterSetting]
    /// Plugin specs (`NAME key=value …`) loaded before the user's own.
    public var plugins: [String]
    /// MCP servers (`[NAME:] COMMAND ARGS…`, as `--mcp` takes them) started before the user's own.
    public var mcp: [String] = []
    /// Layers offloaded to a GPU when `--gpu-layers` is not given (`-1`: all; `0`: none); `nil`
    /// for as many as the GPU's free memory holds.
    public var gpuLayers: Int?
    /// How the model calls tools when `--tool-format` is not given; `nil` for the format its chat
    /// template tells.
    public var toolFormat: ToolCallFormat?
    /// How the KV cache stores keys when `--cache-type-k` is not given; `nil` for f16.
    public var keyCacheType: KVCacheType?
    /// How the KV cache stores values when `--cache-type-v` is not given; `nil` for f16.
    public var valueCacheType: KVCacheType?

    /// Defaults; none by default.
    public init(systemPrompt: String? = nil, parameters: [ParameterSetting] = [], plugins: [String] = [], mcp: [String] = [],
                gpuLayers: Int? = nil, toolFormat: ToolCallFormat? = nil, keyCacheType: KVCacheType? = nil,
                valueCacheType: KVCacheType? = nil) {
        self.systemPrompt = systemPrompt
        self.parameters = parameters
        self.plugins = plugins
        self.mcp = mcp
        self.gpuLayers = gpuLayers
        self.toolFormat = toolFormat
        self.keyCacheType = keyCacheType
        self.valueCacheType = valueCacheType
    }

    /// `preset`'s defaults over these: its system prompt if it has one, its value of each
    /// parameter it sets (in the order of ``ParameterSetting/names``), its plugins loaded after
    /// these, its MCP servers after these (each once), its GPU layers and tool format if it sets them.
    public func overlaid(by preset: ModelDefaults) -> ModelDefaults {
        let set = Set(preset.parameters.map(\.name))
        return ModelDefaults(systemPrompt: preset.systemPrompt ?? systemPrompt,
                             parameters: Self.ordered(parameters.filter { !set.contains($0.name) } + preset.parameters),
                             plugins: plugins + preset.plugins, mcp: mcp + preset.mcp.filter { !mcp.contains($0) },
                             gpuLayers: preset.gpuLayers ?? gpuLayers, toolFormat: preset.toolFormat ?? toolFormat,
                             keyCacheType: preset.keyCacheType ?? keyCacheType, valueCacheType: preset.valueCacheType ?? valueCacheType)
    }

    /// `parameters` in the order of ``ParameterSetting/names``.
    static func ordered(_ parameters: [ParameterSetting]) -> [ParameterSetting] {
        parameters.sorted { ParameterSetting.names.firstIndex(of: $0.name)! < ParameterSetting.names.firstIndex(of: $1.name)! }
    }

    /// Tide's defaults with these parameters applied.
    public var generationParameters: GenerationParameters {
        var result = GenerationParameters()
        for setting in parameters { setting.apply(to: &result) }
        return result
    }
}

extension ModelDefaults: Codable {
    enum CodingKeys: String, CodingKey {
        case systemPrompt = "system_prompt", parameters, plugins, mcp, gpuLayers = "gpu_layers", toolFormat = "tool_format"
        case keyCacheType = "cache_type_k", valueCacheType = "cache_type_v"
    }

    /// Reads the `system_prompt`, `parameters`, `plugins`, `mcp`, `gpu_layers`, `tool_format`,
    /// `cache_type_k` and `cache_type_v` fields of a registry entry. Values
    /// are typed as in JSON: numbers, whole numbers, a number or `"random"` for `seed`, a string
    /// or a list of strings for `stop`; they are checked as `--temperature` and the others are.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        systemPrompt = try container.decodeIfPresent(String.self, forKey: .systemPrompt)
        plugins = try container.decodeIfPresent([String].self, forKey: .plugins) ?? []
        if plugins.contains(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
            throw DecodingError.dataCorruptedError(forKey: .plugins, in: container,
                                                   debugDescription: "a plugin spec is empty; write \"NAME key=value …\"")
        }
        mcp = try container.decodeIfPresent([String].self, forKey: .mcp) ?? []
        if mcp.contains(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
            throw DecodingError.dataCorruptedError(forKey: .mcp, in: container,
                                                   debugDescription: "an MCP server is empty; write \"NAME: COMMAND ARGS…\"")
        }
        gpuLayers = try container.decodeIfPresent(Int.self, forKey: .gpuLayers)
        if let problem = gpuLayers.flatMap(ModelDescription.gpuLayersProblem) {
            throw DecodingError.dataCorruptedError(forKey: .gpuLayers, in: container, debugDescription: "gpu_layers " + problem)
        }
        do {
            toolFormat = try container.decodeIfPresent(String.self, forKey: .toolFormat).map(ToolCallFormat.init(naming:))
        } catch let error as InvalidParameterError {
            throw DecodingError.dataCorruptedError(forKey: .toolFormat, in: container, debugDescription: error.description)
        }
        keyCacheType = try Self.cacheType(in: container, forKey: .keyCacheType)
        valueCacheType = try Self.cacheType(in: container, forKey: .valueCacheType)
        let values = try container.decodeIfPresent([String: ParameterValue].self, forKey: .parameters) ?? [:]
        parameters = []
        for (name, value) in values {
            do {
                parameters.append(try ParameterSetting(name: name, value: value))
            } catch {
                throw DecodingError.dataCorruptedError(forKey: .parameters, in: container, debugDescription: error.description)
            }
        }
        parameters = Self.ordered(parameters)
        do {
            try generationParameters.validate()
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .parameters, in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(systemPrompt, forKey: .systemPrompt)
        if !parameters.isEmpty {
            try container.encode(Dictionary(parameters.map { ($0.name, $0.value) }) { $1 }, forKey: .parameters)
        }
        if !plugins.isEmpty { try container.encode(plugins, forKey: .plugins) }
        if !mcp.isEmpty { try container.encode(mcp, forKey: .mcp) }
        try container.encodeIfPresent(gpuLayers, forKey: .gpuLayers)
        try container.encodeIfPresent(toolFormat, forKey: .toolFormat)
        try container.encodeIfPresent(keyCacheType, forKey: .keyCacheType)
        try container.encodeIfPresent(valueCacheType, forKey: .valueCacheType)
    }

    /// A cache type field, checked: one of llama.cpp's names.
    private static func cacheType(in container: KeyedDecodingContainer<CodingKeys>, forKey key: CodingKeys) throws -> KVCacheType? {
        guard let name = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
        guard let type = KVCacheType(naming: name) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: container,
                                                   debugDescription: "\(key.rawValue) '\(name)' is not a cache type; choose " + KVCacheType.names)
        }
        return type
    }
}
