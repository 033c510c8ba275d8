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
        if listed != .null {
            guard case .array(let items) = listed else {
                throw RequestFieldError(field: "tools", message: #"tools must be a list of {"type": "function", "function": {…}}"#)
            }
            try checkCount(items.count, field: "tools")
            tools = try items.enumerated().map { index, item throws(RequestFieldError) in try definition(item, field: "tools[\(index)]") }
        }
        var offer = try ToolOffer(checking: tools, field: "tools", nameField: { "tools[\($0)].function.name" })
        offer.choice = try choice(chosen, among: tools)
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
        return try Self.tool(name: function["name"], description: function["description"], parameters: function["parameters"] ?? .null,
                             fields: ("\(field).function.name", "\(field).function.description", "\(field).function.parameters"))
    }

    /// A tool of a request, checked: a name of 1 to 64 letters, digits, `_` or `-`, a string
    /// description if any, and parameters (default, unless `required`: an object with no
    /// properties) a schema TideFormat can enforce. Errors name `fields`. Every API's tools are
    /// read here (OpenAI's `function.parameters`, Anthropic's `input_schema`).
    public static func tool(name: JSONValue?, description: JSONValue?, parameters: JSONValue,
                            fields: (name: String, description: String, parameters: String), required: Bool = false) throws(RequestFieldError) -> ToolDefinition
    {
        guard case .string(let name)? = name else {
            throw RequestFieldError(field: fields.name, message: "\(fields.name) is missing; name the tool")
        }
        if let problem = ToolDefinition.problem(withName: name) {
            throw RequestFieldError(field: fields.name, message: "\(fields.name): \(problem)")
        }
        var text = ""
        switch description ?? .null {
        case .null: break
        case .string(let given): text = given
        default: throw RequestFieldError(field: fields.description, message: "\(fields.description) must be a string")
        }
        if parameters == .null, required {
            throw RequestFieldError(field: fields.parameters, message: "\(fields.parameters): Field required (the JSON schema of the tool's input)")
        }
        let schema: JSONValue = parameters == .null
            ? .object(JSONObject([.init(key: "type", value: .string("object")), .init(key: "properties", value: .object(JSONObject([])))]))
            : parameters
        if let problem = ToolDefinition.problem(withParameters: schema) {
            throw RequestFieldError(field: fields.parameters, message: "\(fields.parameters): \(problem)")
        }
        do {
            _ = try JSONSchema(schema)
        } catch {
            throw RequestFieldError(field: fields.parameters, message: "\(fields.parameters) is not a schema Tide can enforce: \(error)")
        }
        return ToolDefinition(name: name, description: text, parameters: schema.text)
    }

    /// Refuses a list `field` of `count` tools, more than ``maximumTools``, before any is read.
    public static func checkCount(_ count: Int, field: String) throws(RequestFieldError) {
        guard count <= maximumTools else {
            throw RequestFieldError(field: field, message: "\(field) lists \(count) tools, more than the \(maximumTools) "
                                    + "a request may offer (OpenAI's limit too); offer the ones this turn needs")
        }
    }

    /// An offer of `tools` (the choice `auto`), checked: each name once in the list `field`
    /// (`nameField` spells tool number i's name).
    public init(checking tools: [ToolDefinition], field: String, nameField: (Int) -> String) throws(RequestFieldError) {
        var names = Set<String>()
        for (index, tool) in tools.enumerated() where !names.insert(tool.name).inserted {
            throw RequestFieldError(field: nameField(index), message: "\(field) lists \(tool.name) twice; give each tool its own name")
        }
        self.init(tools: tools)
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
