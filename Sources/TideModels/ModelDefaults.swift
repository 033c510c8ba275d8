import TideCore

/// What a model entry sets up for a conversation unless the user says otherwise — what an
/// Ollama Modelfile gives: a system prompt, generation parameters and plugins. Command-line
/// options, `/set` and a script's directives all apply over them.
///
/// In `models.json` (and `tide models show --json`):
///
/// ```json
/// {"system_prompt": "Answer in one sentence.",
///  "parameters": {"temperature": 0.2, "repeat-penalty": 1.1, "stop": ["\n\n"], "seed": "random"},
///  "plugins": ["stop-after-sentences sentences=2"], "gpu_layers": 20}
/// ```
public struct ModelDefaults: Sendable, Hashable {
    /// The system prompt when the user gives none; `nil` to keep the underlying model's.
    public var systemPrompt: String?
    /// Parameters over Tide's defaults, in order.
    public var parameters: [ParameterSetting]
    /// Plugin specs (`NAME key=value …`) loaded before the user's own.
    public var plugins: [String]
    /// Layers offloaded to a GPU when `--gpu-layers` is not given (`-1`: all; `0`: none); `nil`
    /// for as many as the GPU's free memory holds.
    public var gpuLayers: Int?

    /// Defaults; none by default.
    public init(systemPrompt: String? = nil, parameters: [ParameterSetting] = [], plugins: [String] = [], gpuLayers: Int? = nil) {
        self.systemPrompt = systemPrompt
        self.parameters = parameters
        self.plugins = plugins
        self.gpuLayers = gpuLayers
    }

    /// `preset`'s defaults over these: its system prompt if it has one, its value of each
    /// parameter it sets (in the order of ``ParameterSetting/names``), its plugins loaded after
    /// these, its GPU layers if it sets them.
    public func overlaid(by preset: ModelDefaults) -> ModelDefaults {
        let set = Set(preset.parameters.map(\.name))
        return ModelDefaults(systemPrompt: preset.systemPrompt ?? systemPrompt,
                             parameters: Self.ordered(parameters.filter { !set.contains($0.name) } + preset.parameters),
                             plugins: plugins + preset.plugins, gpuLayers: preset.gpuLayers ?? gpuLayers)
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
        case systemPrompt = "system_prompt", parameters, plugins, gpuLayers = "gpu_layers"
    }

    /// A parameter's value in JSON: a number, a string, or a list of strings.
    enum Value: Codable, Hashable {
        case number(Double), string(String), strings([String]), bool(Bool)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Double.self) {
                self = .number(number)
            } else if let flag = try? container.decode(Bool.self) {
                self = .bool(flag)
            } else if let text = try? container.decode(String.self) {
                self = .string(text)
            } else if let strings = try? container.decode([String].self) {
                self = .strings(strings)
            } else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "a number, a string, true or false, or a list of strings")
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .number(let number): try container.encode(number)
            case .string(let text): try container.encode(text)
            case .strings(let strings): try container.encode(strings)
            case .bool(let flag): try container.encode(flag)
            }
        }
    }

    /// Reads the `system_prompt`, `parameters`, `plugins` and `gpu_layers` fields of a registry entry. Values
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
        gpuLayers = try container.decodeIfPresent(Int.self, forKey: .gpuLayers)
        if let problem = gpuLayers.flatMap(ModelDescription.gpuLayersProblem) {
            throw DecodingError.dataCorruptedError(forKey: .gpuLayers, in: container, debugDescription: "gpu_layers " + problem)
        }
        let values = try container.decodeIfPresent([String: Value].self, forKey: .parameters) ?? [:]
        parameters = []
        for (name, value) in values {
            guard let setting = Self.setting(name, value) else {
                throw DecodingError.dataCorruptedError(forKey: .parameters, in: container, debugDescription:
                    ParameterSetting.names.contains(name)
                        ? "\(name) must be " + Self.expected(name)
                        : "'\(name)' is not a generation parameter; one of: " + ParameterSetting.names.joined(separator: ", "))
            }
            parameters.append(setting)
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
        try container.encodeIfPresent(gpuLayers, forKey: .gpuLayers)
    }

    /// What the value of `name` must be.
    static func expected(_ name: String) -> String {
        switch name {
        case "top-k", "repeat-last-n", "max-tokens", "max-tool-rounds": "a whole number"
        case "tool-choice": "\"auto\", \"none\", \"required\" or a tool's name"
        case "parallel-tool-calls": "true or false"
        case "reasoning-budget": "a whole number (-1: no limit)"
        case "seed": "a whole number from 0 to \(UInt32.max), or \"random\""
        case "stop": "a string or a list of strings"
        default: "a number"
        }
    }

    /// The setting `name` takes `value` to be; `nil` for an unknown name or a value of the wrong type.
    static func setting(_ name: String, _ value: Value) -> ParameterSetting? {
        switch (name, value) {
        case ("temperature", .number(let number)): .temperature(number)
        case ("top-p", .number(let number)): .topP(number)
        case ("min-p", .number(let number)): .minP(number)
        case ("repeat-penalty", .number(let number)): .repeatPenalty(number)
        case ("top-k", .number(let number)): Int(exactly: number).map { .topK($0) }
        case ("repeat-last-n", .number(let number)): Int(exactly: number).map { .repeatLastN($0) }
        case ("max-tokens", .number(let number)): Int(exactly: number).map { .maxTokens($0) }
        case ("seed", .string("random")): .seed(nil)
        case ("seed", .number(let number)): UInt32(exactly: number).map { .seed($0) }
        case ("stop", .string(let text)): .stop([text])
        case ("stop", .strings(let strings)): .stop(strings)
        case ("tool-choice", .string(let text)): .toolChoice(ToolChoice(text))
        case ("max-tool-rounds", .number(let number)): Int(exactly: number).map { .maxToolRounds($0) }
        case ("parallel-tool-calls", .bool(let flag)): .parallelToolCalls(flag)
        case ("reasoning-budget", .number(let number)): Int(exactly: number).map { .reasoningBudget($0 == -1 ? nil : $0) }
        default: nil
        }
    }
}

extension ParameterSetting {
    /// The value as a registry entry holds it.
    var value: ModelDefaults.Value {
        switch self {
        case .temperature(let value), .topP(let value), .minP(let value), .repeatPenalty(let value): .number(value)
        case .topK(let value), .repeatLastN(let value), .maxTokens(let value): .number(Double(value))
        case .seed(let seed): seed.map { .number(Double($0)) } ?? .string("random")
        case .stop(let strings): .strings(strings)
        case .toolChoice(let choice): .string(choice.description)
        case .maxToolRounds(let value): .number(Double(value))
        case .parallelToolCalls(let flag): .bool(flag)
        case .reasoningBudget(let budget): .number(Double(budget ?? -1))
        }
    }
}
