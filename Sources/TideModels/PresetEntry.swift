import Foundation

/// A model of the user's registry that is another model with defaults of its own — a system
/// prompt, parameters, plugins — as `tide models create NAME --from MODEL …` writes it:
///
/// ```json
/// {"name": "terse", "kind": "preset", "from": "smollm2-135m-instruct",
///  "system_prompt": "Answer in one sentence.", "parameters": {"temperature": 0.2}}
/// ```
public struct PresetEntry: Sendable, Hashable, Codable {
    /// The name users type.
    public var name: String
    /// The model it starts from: a built-in model, another entry of the registry, or a `.gguf` path.
    public var from: String
    /// Its defaults, over those of the model it starts from.
    public var defaults: ModelDefaults

    /// A preset named `name` on `from`.
    public init(name: String, from: String, defaults: ModelDefaults) {
        self.name = name
        self.from = from
        self.defaults = defaults
    }

    enum CodingKeys: String, CodingKey {
        case name, kind, from
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        from = try container.decode(String.self, forKey: .from)
        if from.trimmingCharacters(in: .whitespaces).isEmpty {
            throw DecodingError.dataCorruptedError(forKey: .from, in: container, debugDescription: "from must name a model")
        }
        defaults = try ModelDefaults(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode("preset", forKey: .kind)
        try container.encode(from, forKey: .from)
        try defaults.encode(to: encoder)
    }
}
