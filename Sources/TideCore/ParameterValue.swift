/// A generation parameter's value as every surface exchanges it: the shape of JSON (a request's
/// field, a log record, `--json`, a preset, a plugin's `prompt.params`), which each parameter's
/// declaration (``ParameterDeclaration``) reads into its own type and writes back.
public enum ParameterValue: Sendable, Hashable {
    /// No value: a random seed, no reasoning budget.
    case null
    /// `true` or `false`.
    case flag(Bool)
    /// A number, whole or not.
    case number(Double)
    /// A string.
    case text(String)
    /// A list (stop strings, a logit bias's pairs).
    case list([ParameterValue])
    /// An object (OpenAI's logit bias map).
    case map([String: ParameterValue])

    /// What kind of value this is, in words, for errors: "a number", "a list".
    public var kindName: String {
        switch self {
        case .null: "null"
        case .flag: "true or false"
        case .number: "a number"
        case .text: "a string"
        case .list: "a list"
        case .map: "an object"
        }
    }
}

extension ParameterValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .flag(flag)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let text = try? container.decode(String.self) {
            self = .text(text)
        } else if let list = try? container.decode([ParameterValue].self) {
            self = .list(list)
        } else if let map = try? container.decode([String: ParameterValue].self) {
            self = .map(map)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .flag(let flag): try container.encode(flag)
        case .number(let number): try container.encode(number)
        case .text(let text): try container.encode(text)
        case .list(let list): try container.encode(list)
        case .map(let map): try container.encode(map)
        }
    }
}

extension ParameterValue: ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral, ExpressibleByStringLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByNilLiteral
{
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(booleanLiteral value: Bool) { self = .flag(value) }
    public init(arrayLiteral elements: ParameterValue...) { self = .list(elements) }
    public init(nilLiteral: ()) { self = .null }
}

/// A coding key of any name: the fields of parameters, which their declarations name.
public struct AnyCodingKey: CodingKey, Hashable, Sendable {
    public let stringValue: String
    public var intValue: Int? { nil }

    /// The key `name`.
    public init(_ name: String) { stringValue = name }
    public init?(stringValue: String) { self.stringValue = stringValue }
    public init?(intValue: Int) { nil }
}
