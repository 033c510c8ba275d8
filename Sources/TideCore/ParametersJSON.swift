/// Generation parameters as JSON shows them, each under its field's name (`top_k`, from its
/// ``ParameterDeclaration``): in `--json` output and in the conversation log, which reads them
/// back. A parameter with no value (a random seed, no reasoning budget) is left out; a field a
/// log written before the parameter existed lacks reads as the default.
public struct ParametersJSON: Codable, Sendable, Hashable {
    /// The parameters, without the reply format (which the JSON only describes).
    public var parameters: GenerationParameters
    /// The reply format (`json`, a schema, a grammar), as `/show` describes it.
    public var format: String?

    /// The JSON of `parameters`.
    public init(_ parameters: GenerationParameters) {
        var kept = parameters
        kept.format = nil
        self.parameters = kept
        format = parameters.format?.description
    }

    /// Fields besides the declared parameters.
    enum CodingKeys: String, CodingKey {
        case maxRewinds = "max_rewinds", format, rawPrompt = "raw_prompt"
    }

    public init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: AnyCodingKey.self)
        parameters = GenerationParameters()
        for declaration in GenerationParameters.declarations {
            let key = AnyCodingKey(declaration.field)
            guard let value = try fields.decodeIfPresent(ParameterValue.self, forKey: key) else { continue }
            do {
                try declaration.set(value, in: &parameters)
            } catch {
                throw DecodingError.dataCorruptedError(forKey: key, in: fields, debugDescription: error.description)
            }
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let maxRewinds = try container.decodeIfPresent(Int.self, forKey: .maxRewinds) { parameters.maxRewinds = maxRewinds }
        parameters.rawPrompt = try container.decodeIfPresent(Bool.self, forKey: .rawPrompt) ?? false
        format = try container.decodeIfPresent(String.self, forKey: .format)
    }

    /// Writes every parameter that has a value; `raw_prompt` only when it is set.
    public func encode(to encoder: any Encoder) throws {
        var fields = encoder.container(keyedBy: AnyCodingKey.self)
        for declaration in GenerationParameters.declarations {
            let value = declaration.value(in: parameters)
            if value != .null { try fields.encode(value, forKey: AnyCodingKey(declaration.field)) }
        }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(parameters.maxRewinds, forKey: .maxRewinds)
        try container.encodeIfPresent(format, forKey: .format)
        if parameters.rawPrompt { try container.encode(true, forKey: .rawPrompt) }
    }
}
