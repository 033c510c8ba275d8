import TideCore
import TideFormat

extension ResponsesRequest {
    /// Reads input item `item` onto the conversation `messages`: a message, a `function_call`
    /// (added to the assistant message it belongs to), a `function_call_output` (answering a call
    /// of the assistant message before it), or `reasoning` (kept for the next assistant message).
    static func read(_ item: JSONValue, field: String, into messages: inout [ChatMessage], reasoning: inout String?)
        throws(RequestFieldError)
    {
        guard case .object(let object) = item else { throw RequestFieldError(field: field, message: "\(field) must be an object (an item)") }
        let type: String
        switch object["type"] {
        case nil, .null?: type = "message"
        case .string(let given)?: type = given
        default: throw RequestFieldError(field: "\(field).type", message: "\(field).type must be a string")
        }
        switch type {
        case "message":
            try allow(["type", "role", "content", "id", "status", "phase"], in: object, field: field)
            guard case .string(let role)? = object["role"] else {
                throw RequestFieldError(field: "\(field).role", message: "\(field).role must be user, system, developer or assistant")
            }
            let text = try content(object["content"], field: "\(field).content", role: role)
            switch role {
            case "user": messages.append(ChatMessage(.user, text))
            case "system", "developer": messages.append(ChatMessage(.system, text))
            case "assistant": assistant(into: &messages, text: text, call: nil, reasoning: &reasoning)
            default: throw RequestFieldError(field: "\(field).role", message: "\(field).role '\(role)' is not one Tide knows; use user, "
                                                 + "system, developer or assistant")
            }
        case "function_call":
            try allow(["type", "call_id", "name", "arguments", "id", "status", "namespace"], in: object, field: field)
            guard case .string(let id)? = object["call_id"], !id.isEmpty else {
                throw RequestFieldError(field: "\(field).call_id", message: "\(field).call_id must be the call's id")
            }
            guard case .string(let name)? = object["name"] else {
                throw RequestFieldError(field: "\(field).name", message: "\(field).name must be the function's name")
            }
            guard case .string(let arguments)? = object["arguments"], case .object? = try? JSONValue(parsing: arguments) else {
                throw RequestFieldError(field: "\(field).arguments", message: "\(field).arguments must be a JSON object's text")
            }
            assistant(into: &messages, text: "", call: ToolCall(id: id, name: name, arguments: arguments), reasoning: &reasoning)
        case "function_call_output":
            try allow(["type", "call_id", "output", "id", "status"], in: object, field: field)
            guard case .string(let id)? = object["call_id"] else {
                throw RequestFieldError(field: "\(field).call_id", message: "\(field).call_id must be the id of the call it answers")
            }
            let start = messages.lastIndex { $0.role != .tool } ?? 0
            let calls = messages.indices.contains(start) && messages[start].role == .assistant ? messages[start].toolCalls : []
            guard calls.contains(where: { $0.id == id }) else {
                throw RequestFieldError(field: "\(field).call_id", message: "No tool call found for function call output with call_id \(id): "
                                            + "it must answer a function_call of the items before it")
            }
            guard !messages[(start + 1)...].contains(where: { $0.toolCallID == id }) else {
                throw RequestFieldError(field: "\(field).call_id", message: "\(field) answers the call \(id) a second time; send one output a call")
            }
            messages.append(ChatMessage(.tool, try content(object["output"], field: "\(field).output", role: "tool"), toolCallID: id))
        case "reasoning":
            try allow(["type", "id", "summary", "content", "encrypted_content", "status"], in: object, field: field)
            if let encrypted = object["encrypted_content"], encrypted != .null {
                throw RequestFieldError(field: "\(field).encrypted_content", message: "\(field).encrypted_content is OpenAI's to read; this "
                                            + "server never gives it out: send the reasoning's summary or content instead")
            }
            var texts: [String] = []
            for key in ["content", "summary"] where texts.isEmpty {
                guard case .array(let parts)? = object[key] else { continue }
                for (index, part) in parts.enumerated() {
                    guard case .object(let fields) = part, case .string(let text)? = fields["text"] else {
                        throw RequestFieldError(field: "\(field).\(key)[\(index)]", message: "\(field).\(key)[\(index)] must be {type, text}")
                    }
                    texts.append(text)
                }
            }
            reasoning = (reasoning.map { [$0] } ?? []).joined() + texts.joined(separator: "\n\n")
        case "item_reference":
            throw RequestFieldError(field: "\(field).type", message: "\(field) refers to an item by id; send the item itself (or continue a "
                                        + "stored response with previous_response_id)")
        default:
            throw RequestFieldError(field: "\(field).type", message: "\(field).type '\(type)' is not an item this server reads; use message, "
                                        + "function_call, function_call_output or reasoning")
        }
    }

    /// Adds `text` and `call` to the assistant message that ends `messages`, or a new one, with
    /// the reasoning kept for it.
    private static func assistant(into messages: inout [ChatMessage], text: String, call: ToolCall?, reasoning: inout String?) {
        if messages.last?.role != .assistant { messages.append(ChatMessage(.assistant, "")) }
        messages[messages.count - 1].content += text
        if let call { messages[messages.count - 1].toolCalls.append(call) }
        if let thought = reasoning {
            messages[messages.count - 1].reasoning = (messages[messages.count - 1].reasoning ?? "") + thought
            reasoning = nil
        }
    }

    /// The text of a message's `content` or a call's `output`: a string, or a list of text parts
    /// (`input_text`, an assistant's `output_text` and `refusal`).
    private static func content(_ value: JSONValue?, field: String, role: String) throws(RequestFieldError) -> String {
        switch value {
        case .string(let text)?: return try noNUL(text, field: field)
        case .array(let parts)?:
            var text = ""
            for (index, part) in parts.enumerated() {
                let place = "\(field)[\(index)]"
                guard case .object(let fields) = part, case .string(let type)? = fields["type"] else {
                    throw RequestFieldError(field: place, message: "\(place) must be a content part: an object with a type")
                }
                switch type {
                case "input_text", "output_text", "text":
                    guard case .string(let piece)? = fields["text"] else {
                        throw RequestFieldError(field: "\(place).text", message: "\(place).text must be a string")
                    }
                    text += try noNUL(piece, field: "\(place).text")
                case "refusal":
                    guard case .string(let piece)? = fields["refusal"] else {
                        throw RequestFieldError(field: "\(place).refusal", message: "\(place).refusal must be a string")
                    }
                    text += piece
                case "input_image", "input_file", "input_audio":
                    throw RequestFieldError(field: "\(place).type", message: "\(place) is an \(type) part; this server's model reads text only: "
                                                + "send the content as input_text")
                default:
                    throw RequestFieldError(field: "\(place).type", message: "\(place).type '\(type)' is not a part this server reads; use input_text")
                }
            }
            return text
        default:
            throw RequestFieldError(field: field, message: "\(field) must be a string or a list of input_text parts")
        }
    }

    private static func noNUL(_ text: String, field: String) throws(RequestFieldError) -> String {
        guard !text.utf8.contains(0) else {
            throw RequestFieldError(field: field, message: "\(field) holds a NUL character (U+0000), which a prompt cannot carry; remove it")
        }
        return text
    }

    private static func allow(_ known: Set<String>, in object: JSONObject, field: String) throws(RequestFieldError) {
        for member in object.members where !known.contains(member.key) {
            throw RequestFieldError(field: "\(field).\(member.key)", message: "Unknown parameter: '\(field).\(member.key)'")
        }
    }

    /// The generation parameters the body sets: `max_output_tokens`, `reasoning.effort` as a
    /// budget, and each of Tide's parameters by its field's name.
    static func parameters(in object: JSONObject) throws(RequestFieldError) -> [ParameterSetting] {
        var settings: [ParameterSetting] = []
        func set(_ name: String, _ value: ParameterValue, field: String) throws(RequestFieldError) {
            settings.append(try ParameterSetting.requested(name, value, field: field))
        }
        for member in object.distinctMembers where member.value != .null {
            if let declaration = requestParameter(member.key) { try set(declaration.name, ParameterValue(member.value), field: member.key) }
        }
        if let tokens = object["max_output_tokens"], tokens != .null { try set("max-tokens", ParameterValue(tokens), field: "max_output_tokens") }
        if let reasoning = object["reasoning"], reasoning != .null {
            guard case .object(let fields) = reasoning else {
                throw RequestFieldError(field: "reasoning", message: "reasoning must be an object {effort, summary}")
            }
            for member in fields.members where !["effort", "summary", "generate_summary"].contains(member.key) {
                throw RequestFieldError(field: "reasoning.\(member.key)", message: "Unknown parameter: 'reasoning.\(member.key)'")
            }
            switch fields["effort"] {
            case nil, .null?: break
            case .string(let effort)?:
                guard let budget = effortBudgets[effort] else {
                    throw RequestFieldError(field: "reasoning.effort", message: "reasoning.effort '\(effort)' is not one Tide knows; use "
                                                + effortBudgets.keys.sorted().joined(separator: ", "))
                }
                try set("reasoning-budget", .number(Double(budget)), field: "reasoning.effort")
            default: throw RequestFieldError(field: "reasoning.effort", message: "reasoning.effort must be a string")
            }
            for key in ["summary", "generate_summary"] {
                switch fields[key] {
                case nil, .null?: break
                case .string(let summary)? where ["auto", "concise", "detailed"].contains(summary): break
                default: throw RequestFieldError(field: "reasoning.\(key)", message: "reasoning.\(key) must be auto, concise or detailed")
                }
            }
        }
        return settings
    }

    /// The reasoning budget of each `reasoning.effort`, in tokens (-1: no limit).
    public static let effortBudgets = ["none": 0, "minimal": 256, "low": 1024, "medium": 4096, "high": -1, "xhigh": -1]

    /// The tools offered: function tools `{type: "function", name, description, parameters,
    /// strict}`, checked as a chat completion's are; `tool_choice` and `parallel_tool_calls`.
    static func tools(in object: JSONObject) throws(RequestFieldError) -> ToolOffer? {
        let listed = object["tools"] ?? .null
        let chosen = object["tool_choice"] ?? .null
        let parallel = object["parallel_tool_calls"] ?? .null
        guard listed != .null || chosen != .null else {
            guard parallel == .null || parallel == .bool(true) || parallel == .bool(false) else {
                throw RequestFieldError(field: "parallel_tool_calls", message: "parallel_tool_calls must be true or false")
            }
            return nil
        }
        var tools: [ToolDefinition] = []
        if case .array(let items) = listed {
            try ToolOffer.checkCount(items.count, field: "tools")
            for (index, item) in items.enumerated() {
                let field = "tools[\(index)]"
                guard case .object(let tool) = item, case .string(let type)? = tool["type"] else {
                    throw RequestFieldError(field: field, message: "\(field) must be {type: \"function\", name, parameters}")
                }
                guard type == "function" else {
                    throw RequestFieldError(field: "\(field).type", message: "\(field) is the hosted tool '\(type)', which this server does "
                                                + "not have; offer a function tool")
                }
                try allow(["type", "name", "description", "parameters", "strict"], in: tool, field: field)
                tools.append(try ToolOffer.tool(name: tool["name"], description: tool["description"], parameters: tool["parameters"] ?? .null,
                                                fields: ("\(field).name", "\(field).description", "\(field).parameters")))
            }
        } else if listed != .null {
            throw RequestFieldError(field: "tools", message: "tools must be a list of function tools")
        }
        var offer = try ToolOffer(checking: tools, field: "tools", nameField: { "tools[\($0)].name" })
        switch chosen {
        case .null, .string("auto"): break
        case .string("none"): offer.choice = .none
        case .string("required"): offer.choice = .required
        case .object(let choice) where choice["type"] == .string("function"):
            guard case .string(let name)? = choice["name"], tools.contains(where: { $0.name == name }) else {
                throw RequestFieldError(field: "tool_choice.name", message: "tool_choice names no function that tools lists")
            }
            offer.choice = .named(name)
        default:
            throw RequestFieldError(field: "tool_choice", message: #"tool_choice must be "auto", "none", "required" or {"type": "function", "name": …}"#)
        }
        switch parallel {
        case .null: break
        case .bool(let flag): offer.parallel = flag
        default: throw RequestFieldError(field: "parallel_tool_calls", message: "parallel_tool_calls must be true or false")
        }
        return offer
    }

    /// The reply format `text.format` asks for: `text`, `json_object`, or
    /// `json_schema` with `name` and `schema` (and `strict`, `description`).
    static func format(in object: JSONObject) throws(RequestFieldError) -> ReplyFormat? {
        guard let text = object["text"], text != .null else { return nil }
        guard case .object(let fields) = text else { throw RequestFieldError(field: "text", message: "text must be an object {format}") }
        for member in fields.members where !["format", "verbosity"].contains(member.key) {
            throw RequestFieldError(field: "text.\(member.key)", message: "Unknown parameter: 'text.\(member.key)'")
        }
        switch fields["verbosity"] {
        case nil, .null?, .string("medium")?: break
        default: throw RequestFieldError(field: "text.verbosity", message: "text.verbosity is not honoured by this server's model; leave it "
                                             + "out (or medium)")
        }
        guard let format = fields["format"], format != .null else { return nil }
        guard case .object(let shape) = format, case .string(let type)? = shape["type"] else {
            throw RequestFieldError(field: "text.format", message: "text.format must be an object with a type")
        }
        switch type {
        case "text": return nil
        case "json_object": return .json
        case "json_schema":
            try allow(["type", "name", "schema", "strict", "description"], in: shape, field: "text.format")
            guard let schema = shape["schema"] else {
                throw RequestFieldError(field: "text.format.schema", message: "text.format.schema is missing: the JSON schema of the reply")
            }
            return try ReplyFormat.jsonSchema(schema, field: "text.format.schema")
        default:
            throw RequestFieldError(field: "text.format.type", message: "text.format.type '\(type)' is not supported; use text, json_object "
                                        + "or json_schema")
        }
    }

    /// Checks the fields that do not change the reply, and those Tide honours in one way only.
    static func check(_ object: JSONObject) throws(RequestFieldError) {
        for key in ["user", "safety_identifier", "prompt_cache_key"] {
            switch object[key] {
            case nil, .null?, .string?: break
            default: throw RequestFieldError(field: key, message: "\(key) must be a string")
            }
        }
        switch object["truncation"] {
        case nil, .null?, .string("disabled")?: break
        default: throw RequestFieldError(field: "truncation", message: "truncation must be disabled: a conversation too long for the "
                                             + "context is refused, never cut")
        }
        switch object["service_tier"] {
        case nil, .null?, .string("auto")?, .string("default")?: break
        default: throw RequestFieldError(field: "service_tier", message: "service_tier must be auto or default: this server has one tier")
        }
        switch object["metadata"] {
        case nil, .null?: break
        case .object(let fields)?:
            guard fields.members.count <= 16, fields.members.allSatisfy({ if case .string = $0.value { true } else { false } }) else {
                throw RequestFieldError(field: "metadata", message: "metadata holds at most 16 keys, each with a string value")
            }
        default: throw RequestFieldError(field: "metadata", message: "metadata must be an object of strings")
        }
        switch object["include"] {
        case nil, .null?: break
        case .array(let items)?:
            for (index, item) in items.enumerated() {
                throw RequestFieldError(field: "include[\(index)]", message: "include[\(index)] \(item.text) is not given by this server; "
                                            + "it gives the reasoning as text in every response (include may be empty)")
            }
        default: throw RequestFieldError(field: "include", message: "include must be a list")
        }
    }
}
