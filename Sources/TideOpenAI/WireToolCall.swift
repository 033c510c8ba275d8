import TideCore

/// A tool call as OpenAI's API writes it in an assistant message:
/// `{"id": …, "type": "function", "function": {"name": …, "arguments": "<JSON text>"}}`.
public struct WireToolCall: Codable, Sendable, Hashable {
    /// The function called and its arguments (a JSON object's text, as a string).
    public struct Function: Codable, Sendable, Hashable {
        public var name: String
        public var arguments: String

        public init(name: String, arguments: String) {
            self.name = name
            self.arguments = arguments
        }
    }

    public var id: String
    /// Always `function`.
    public var type: String
    public var function: Function

    /// `call` on the wire.
    public init(_ call: ToolCall) {
        id = call.id
        type = "function"
        function = Function(name: call.name, arguments: call.arguments)
    }

    /// The call in Tide's terms.
    public var call: ToolCall { ToolCall(id: id, name: function.name, arguments: function.arguments) }
}

/// One piece of a streamed tool call (`choices[0].delta.tool_calls[i]`): the first piece of a
/// call has its `id`, `type` and function name; later ones add to its arguments. `index` says
/// which call of the reply a piece belongs to.
public struct WireToolCallDelta: Codable, Sendable, Hashable {
    /// The piece's part of the function: its name (first piece), more of its arguments.
    public struct Function: Codable, Sendable, Hashable {
        public var name: String?
        public var arguments: String?

        public init(name: String? = nil, arguments: String? = nil) {
            self.name = name
            self.arguments = arguments
        }
    }

    public var index: Int
    public var id: String?
    public var type: String?
    public var function: Function?

    public init(index: Int, id: String? = nil, type: String? = nil, function: Function? = nil) {
        self.index = index
        self.id = id
        self.type = type
        self.function = function
    }

    /// The pieces OpenAI streams for `call`, the reply's call number `index`: its id and name
    /// (with empty arguments), then its arguments.
    public static func pieces(of call: ToolCall, index: Int) -> [WireToolCallDelta] {
        [WireToolCallDelta(index: index, id: call.id, type: "function", function: Function(name: call.name, arguments: "")),
         WireToolCallDelta(index: index, function: Function(arguments: call.arguments))]
    }
}
