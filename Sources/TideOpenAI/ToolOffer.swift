import TideCore
import TideFormat

/// The tools a chat-completion request offers the model: OpenAI's `tools` (functions with a JSON
/// schema of their arguments), `tool_choice` and `parallel_tool_calls`. Read from the body in its
/// own key order, as a reply format is (a schema's property order is the order the model writes
/// the arguments in), and written back the same way by a client (``requestFields``).
public struct ToolOffer: Sendable, Hashable {
    /// The most tools one request may offer: 128, as OpenAI allows.
    public static let maximumTools = 128

    /// The tools, in the request's order.
    public var tools: [ToolDefinition]
    /// `tool_choice`: `auto` unless the request says.
    public var choice: ToolChoice
    /// `parallel_tool_calls`: whether one reply may call several tools (true unless the request says).
    public var parallel: Bool

    /// An offer.
    public init(tools: [ToolDefinition], choice: ToolChoice = .auto, parallel: Bool = true) {
        self.tools = tools
        self.choice = choice
        self.parallel = parallel
    }

    /// The offer in `body`, `nil` when it has neither `tools` nor `tool_choice`. Each tool must be
    /// `{"type": "function", "function": {"name", "description"?, "parameters"?}}` with a name of
    /// 1 to 64 letters, digits, `_` or `-`, names distinct, and parameters a schema TideFormat can
    /// enforce; `tool_choice` is `auto`, `none`, `required` or `{"type": "function", "function":
    /// {"name": …}}` naming one of them. Anything else is a ``RequestFieldError`` naming the field.
    public static func requested(in body: JSONValue) throws(RequestFieldError) -> ToolOffer? {
        guard case .object(let fields) = body else { return nil }
        let listed = fields["tools"] ?? .null
        let chosen = fields["tool_choice"] ?? .null
        let parallel = fields["parallel_tool_calls"] ?? .null
        guard listed != .null || chosen != .null else { return nil }
        var tools: [ToolDefinition] = []
        var names = Set<String>()
        if listed != .null {
            guard case .array(let items) = listed else {
                throw RequestFieldError(field: "tools", message: #"tools must be a list of {"type": "function", "function": {…}}"#)
            }
            guard items.count <= Self.maximumTools else {
                throw RequestFieldError(field: "tools", message: "tools lists \(items.count) tools, more than the \(Self.maximumTools) "
                                        + "a request may offer (OpenAI's limit too); offer the ones this turn needs")
            }
            for (index, item) in items.enumerated() {
                let tool = try definition(item, field: "tools[\(index)]")
                guard names.insert(tool.name).inserted else {
                    throw RequestFieldError(field: "tools[\(index)].function.name",
                                            message: "tools lists \(tool.name) twice; give each tool its own name")
                }
                tools.append(tool)
            }
        }
        var offer = ToolOffer(tools: tools, choice: try choice(chosen, among: tools))
        switch parallel {
        case .null: break
        case .bool(let flag): offer.parallel = flag
        default: throw RequestFieldError(field: "parallel_tool_calls", message: "parallel_tool_calls must be true or false")
        }
        return offer
    }

    private static func definition(_ item: JSONValue, field: String) throws(RequestFieldError) -> ToolDefinition {
        guard case .object(let tool) = item, tool["type"] == .string("function"), case .object(let function)? = tool["function"] else {
            throw RequestFieldError(field: field, message: #"\#(field) must be {"type": "function", "function": {"name": …, "parameters": {…}}}"#)
        }
        guard case .string(let name)? = function["name"] else {
            throw RequestFieldError(field: "\(field).function.name", message: "\(field).function.name is missing; name the tool")
        }
        if let problem = ToolDefinition.problem(withName: name) {
            throw RequestFieldError(field: "\(field).function.name", message: "\(field).function.name: \(problem)")
        }
        var description = ""
        switch function["description"] ?? .null {
        case .null: break
        case .string(let text): description = text
        default: throw RequestFieldError(field: "\(field).function.description", message: "\(field).function.description must be a string")
        }
        let parameters = function["parameters"] ?? .null
        let schema: JSONValue = parameters == .null
            ? .object(JSONObject([.init(key: "type", value: .string("object")), .init(key: "properties", value: .object(JSONObject([])))]))
            : parameters
        if let problem = ToolDefinition.problem(withParameters: schema) {
            throw RequestFieldError(field: "\(field).function.parameters", message: "\(field).function.parameters: \(problem)")
        }
        do {
            _ = try JSONSchema(schema)
        } catch {
            throw RequestFieldError(field: "\(field).function.parameters",
                                    message: "\(field).function.parameters is not a schema Tide can enforce: \(error)")
        }
        return ToolDefinition(name: name, description: description, parameters: schema.text)
    }

    private static func choice(_ value: JSONValue, among tools: [ToolDefinition]) throws(RequestFieldError) -> ToolChoice {
        let usage = #"use "auto", "none", "required" or {"type": "function", "function": {"name": …}}"#
        switch value {
        case .null: return .auto
        case .string("auto"): return .auto
        case .string("none"): return .none
        case .string("required"): return .required
        case .object(let object):
            guard object["type"] == .string("function"), case .object(let function)? = object["function"],
                  case .string(let name)? = function["name"]
            else { throw RequestFieldError(field: "tool_choice", message: "tool_choice names no function; \(usage)") }
            guard tools.isEmpty || tools.contains(where: { $0.name == name }) else {
                throw RequestFieldError(field: "tool_choice", message: "tool_choice names \(name), which tools does not list; "
                                            + "the tools are \(tools.map(\.name).joined(separator: ", "))")
            }
            return .named(name)
        default:
            throw RequestFieldError(field: "tool_choice", message: "tool_choice \(value.text) is not one Tide knows; \(usage)")
        }
    }

    /// The fields that offer these tools to an OpenAI-compatible server, which ``requested(in:)``
    /// reads back.
    public var requestFields: [JSONObject.Member] {
        let listed = tools.map(\.functionJSON)
        let choice: JSONValue = switch self.choice {
        case .auto, .none, .required: .string(self.choice.description)
        case .named(let name):
            .object(JSONObject([.init(key: "type", value: .string("function")),
                                .init(key: "function", value: .object(JSONObject([.init(key: "name", value: .string(name))])))]))
        }
        var fields: [JSONObject.Member] = [.init(key: "tools", value: .array(listed)), .init(key: "tool_choice", value: choice)]
        // Sent only when it differs from OpenAI's default: some servers reject the field.
        if !parallel { fields.append(.init(key: "parallel_tool_calls", value: .bool(false))) }
        return fields
    }
}
