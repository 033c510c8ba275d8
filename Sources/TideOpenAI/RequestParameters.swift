import TideCore
import TideFormat

extension ChatCompletionRequest {
    /// Sets the request's parameter fields from `parameters`, as a client sends them: OpenAI's own
    /// always, the others only when they are not Tide's default (so that a server that does not
    /// know a field never sees it unless it is asked for), and none that Tide acts on itself
    /// (``TideCore/ParameterDeclaration/RequestUse``).
    public mutating func setParameters(_ parameters: GenerationParameters) {
        let defaults = GenerationParameters()
        self.parameters = ParameterSetting.all(of: parameters).filter { setting in
            guard setting.value != .null else { return false }
            switch setting.declaration.request {
            case .sent: return true
            case .sentWhenChanged: return setting.value != setting.declaration.value(in: defaults)
            case .local, .ownFields: return false
            }
        }
    }

    /// The parameters the request asks for, over `defaults` (a server's), validated. An invalid
    /// value is a ``RequestFieldError`` naming the field in the wire's spelling (`top_p`).
    public func parameters(over defaults: GenerationParameters) throws(RequestFieldError) -> GenerationParameters {
        var parameters = defaults
        for setting in self.parameters { setting.apply(to: &parameters) }
        do {
            try parameters.validate()
        } catch {
            throw RequestFieldError(field: error.field, message: "\(error.field) \(error.rule)")
        }
        return parameters
    }
}

extension ParameterSetting {
    /// The parameter `name` set to `value` as a request's `field` gave it; a bad value is a
    /// ``RequestFieldError`` naming the field.
    public static func requested(_ name: String, _ value: ParameterValue, field: String) throws(RequestFieldError) -> ParameterSetting {
        do {
            return try ParameterSetting(name: name, value: value)
        } catch {
            throw RequestFieldError(field: field, message: "\(field) \(error.rule)")
        }
    }
}

extension ParameterValue {
    /// `json` as a parameter's value, as a request's body gives it.
    public init(_ json: JSONValue) {
        self = switch json {
        case .null: .null
        case .bool(let flag): .flag(flag)
        case .number(let number): .number(number)
        case .string(let text): .text(text)
        case .array(let items): .list(items.map(ParameterValue.init))
        case .object(let object): .map(Dictionary(object.distinctMembers.map { ($0.key, ParameterValue($0.value)) }) { $1 })
        }
    }
}

extension JSONValue {
    /// A parameter's `value` as a request's body sends it.
    public init(_ value: ParameterValue) {
        self = switch value {
        case .null: .null
        case .flag(let flag): .bool(flag)
        case .number(let number): .number(number)
        case .text(let text): .string(text)
        case .list(let items): .array(items.map(JSONValue.init))
        case .map(let map): .object(JSONObject(map.sorted { $0.key < $1.key }.map { .init(key: $0.key, value: JSONValue($0.value)) }))
        }
    }
}
