import TideCore
import TideFormat
import TideOpenAI

extension MessagesRequest {
    /// The text of `system` or of a `tool_result`'s content: a string, or a list of text blocks
    /// (their texts joined).
    static func text(of value: JSONValue, field: String) throws(RequestFieldError) -> String {
        switch value {
        case .string(let text): return text
        case .array(let blocks):
            var text = ""
            for (index, block) in blocks.enumerated() {
                let place = "\(field)[\(index)]"
                let fields = try blockFields(block, field: place)
                guard fields.type == "text" else {
                    throw RequestFieldError(field: "\(place).type", message: "\(place) is a '\(fields.type)' block; only text blocks are read here")
                }
                text += try blockText(fields.object, field: place)
            }
            return text
        default:
            throw RequestFieldError(field: field, message: "\(field) must be a string or a list of text blocks")
        }
    }

    /// The messages Tide reads for one of the request's: a user message's `tool_result` blocks
    /// as `tool` messages (each answering a `tool_use` of the assistant message before it), then
    /// its text; an assistant message's `thinking`, text and `tool_use` blocks as one message.
    static func messages(_ message: JSONValue, field: String, after earlier: [ChatMessage]) throws(RequestFieldError) -> [ChatMessage] {
        guard case .object(let object) = message else {
            throw RequestFieldError(field: field, message: "\(field) must be an object with role and content")
        }
        for member in object.members where !["role", "content"].contains(member.key) {
            throw RequestFieldError(field: "\(field).\(member.key)", message: "\(field).\(member.key): Extra inputs are not permitted; "
                                        + "a message has role and content")
        }
        guard case .string(let role)? = object["role"], role == "user" || role == "assistant" else {
            throw RequestFieldError(field: "\(field).role", message: "\(field).role must be user or assistant (system goes in the top-level system field)")
        }
        let blocks: [JSONValue]
        switch object["content"] {
        case .string(let text)?: blocks = [.fields(["type": .string("text"), "text": .string(text)])]
        case .array(let list)?: blocks = list
        default: throw RequestFieldError(field: "\(field).content", message: "\(field).content must be a string or a list of content blocks")
        }
        var text = "", reasoning = "", calls: [ToolCall] = [], results: [ChatMessage] = []
        let answerable = earlier.last.map { $0.role == .assistant ? $0.toolCalls : [] } ?? []
        for (index, block) in blocks.enumerated() {
            let place = "\(field).content[\(index)]"
            let fields = try blockFields(block, field: place)
            switch (role, fields.type) {
            case (_, "text"): text += try blockText(fields.object, field: place)
            case ("user", "tool_result"):
                results.append(try toolResult(fields.object, field: place, answering: answerable, answered: results))
            case ("assistant", "tool_use"): calls.append(try toolUse(fields.object, field: place, after: calls))
            case ("assistant", "thinking"):
                try allow(["type", "thinking", "signature"], in: fields.object, field: place)
                guard case .string(let thought)? = fields.object["thinking"] else {
                    throw RequestFieldError(field: "\(place).thinking", message: "\(place).thinking must be a string")
                }
                reasoning += thought
            case (_, "image"), (_, "document"), (_, "search_result"):
                throw RequestFieldError(field: "\(place).type", message: "\(place) is an \(fields.type) block; this server's model reads "
                                            + "text only: send the content as text")
            case ("assistant", "redacted_thinking"):
                throw RequestFieldError(field: "\(place).type", message: "\(place) is redacted thinking, which only Anthropic's servers can "
                                            + "read; leave it out")
            default:
                throw RequestFieldError(field: "\(place).type", message: "\(place).type '\(fields.type)' is not a block a \(role) message "
                                            + "may hold here; use " + (role == "user" ? "text or tool_result" : "text, thinking or tool_use"))
            }
        }
        if role == "assistant" {
            return [ChatMessage(.assistant, text, toolCalls: calls, reasoning: reasoning.isEmpty ? nil : reasoning)]
        }
        return results + (text.isEmpty && !results.isEmpty ? [] : [ChatMessage(.user, text)])
    }

    /// A block's object and its `type`.
    private static func blockFields(_ block: JSONValue, field: String) throws(RequestFieldError) -> (object: JSONObject, type: String) {
        guard case .object(let object) = block, case .string(let type)? = object["type"] else {
            throw RequestFieldError(field: field, message: "\(field) must be a content block: an object with a type")
        }
        return (object, type)
    }

    /// Refuses a member of a block that is not in `known` (`cache_control` is always allowed:
    /// Tide keeps every prompt's prefix in its cache anyway).
    private static func allow(_ known: Set<String>, in object: JSONObject, field: String) throws(RequestFieldError) {
        for member in object.members where !known.contains(member.key) && member.key != "cache_control" {
            throw RequestFieldError(field: "\(field).\(member.key)", message: "\(field).\(member.key): Extra inputs are not permitted here")
        }
    }

    private static func blockText(_ object: JSONObject, field: String) throws(RequestFieldError) -> String {
        try allow(["type", "text", "citations"], in: object, field: field)
        if let citations = object["citations"], citations != .null {
            throw RequestFieldError(field: "\(field).citations", message: "\(field).citations need documents, which this server does not "
                                        + "read; leave them out")
        }
        guard case .string(let text)? = object["text"] else {
            throw RequestFieldError(field: "\(field).text", message: "\(field).text must be a string")
        }
        guard !text.utf8.contains(0) else {
            throw RequestFieldError(field: "\(field).text", message: "\(field).text holds a NUL character (U+0000), which a prompt cannot "
                                        + "carry; remove it")
        }
        return text
    }

    private static func toolUse(_ object: JSONObject, field: String, after calls: [ToolCall]) throws(RequestFieldError) -> ToolCall {
        try allow(["type", "id", "name", "input"], in: object, field: field)
        guard case .string(let id)? = object["id"], !id.isEmpty else {
            throw RequestFieldError(field: "\(field).id", message: "\(field).id must be the call's id, a string")
        }
        guard !calls.contains(where: { $0.id == id }) else {
            throw RequestFieldError(field: "\(field).id", message: "\(field).id \(id) is given to two calls; each call has its own id")
        }
        guard case .string(let name)? = object["name"] else {
            throw RequestFieldError(field: "\(field).name", message: "\(field).name must be the tool's name, a string")
        }
        guard case .object? = object["input"], let input = object["input"] else {
            throw RequestFieldError(field: "\(field).input", message: "\(field).input must be an object: the call's arguments")
        }
        return ToolCall(id: id, name: name, arguments: input.text)
    }

    private static func toolResult(_ object: JSONObject, field: String, answering calls: [ToolCall], answered: [ChatMessage])
        throws(RequestFieldError) -> ChatMessage
    {
        try allow(["type", "tool_use_id", "content", "is_error"], in: object, field: field)
        guard case .string(let id)? = object["tool_use_id"] else {
            throw RequestFieldError(field: "\(field).tool_use_id", message: "\(field).tool_use_id must be the id of the tool_use it answers")
        }
        guard calls.contains(where: { $0.id == id }) else {
            throw RequestFieldError(field: "\(field).tool_use_id", message: "\(field).tool_use_id \(id) answers no tool_use of the assistant "
                                        + "message just before it" + (calls.isEmpty ? " (which made no call)"
                                            : " (its calls are \(calls.map(\.id).joined(separator: ", ")))"))
        }
        guard !answered.contains(where: { $0.toolCallID == id }) else {
            throw RequestFieldError(field: "\(field).tool_use_id", message: "\(field).tool_use_id \(id) is answered twice; send one result a call")
        }
        let content = try object["content"].map { value throws(RequestFieldError) in
            value == .null ? "" : try text(of: value, field: "\(field).content")
        } ?? ""
        let failed: Bool
        switch object["is_error"] {
        case nil, .null?: failed = false
        case .bool(let flag)?: failed = flag
        default: throw RequestFieldError(field: "\(field).is_error", message: "\(field).is_error must be true or false")
        }
        // The model reads a failed result as Tide's own tools' failures read: saying so first.
        return ChatMessage(.tool, failed ? "Error: " + content : content, toolCallID: id)
    }

    /// The tools offered: Anthropic's `tools` (`{name, description, input_schema}`) and
    /// `tool_choice` (`auto`, `any`, `tool` with a name, `none`, each with
    /// `disable_parallel_tool_use`), checked as a chat completion's are.
    static func tools(in object: JSONObject) throws(RequestFieldError) -> ToolOffer? {
        let listed = object["tools"] ?? .null
        let chosen = object["tool_choice"] ?? .null
        guard listed != .null || chosen != .null else { return nil }
        var tools: [ToolDefinition] = []
        if listed != .null {
            guard case .array(let items) = listed else {
                throw RequestFieldError(field: "tools", message: "tools must be a list of {name, description, input_schema}")
            }
            try ToolOffer.checkCount(items.count, field: "tools")
            for (index, item) in items.enumerated() {
                let field = "tools[\(index)]"
                guard case .object(let tool) = item else {
                    throw RequestFieldError(field: field, message: "\(field) must be an object {name, description, input_schema}")
                }
                if case .string(let type)? = tool["type"], type != "custom" {
                    throw RequestFieldError(field: "\(field).type", message: "\(field) is Anthropic's server tool '\(type)', which this server "
                                                + "does not have; offer a custom tool with an input_schema")
                }
                try allow(["type", "name", "description", "input_schema"], in: tool, field: field)
                tools.append(try ToolOffer.tool(name: tool["name"], description: tool["description"], parameters: tool["input_schema"] ?? .null,
                                                fields: ("\(field).name", "\(field).description", "\(field).input_schema"), required: true))
            }
        }
        var offer = try ToolOffer(checking: tools, field: "tools", nameField: { "tools[\($0)].name" })
        let usage = #"use {"type": "auto"}, {"type": "any"}, {"type": "tool", "name": …} or {"type": "none"}"#
        switch chosen {
        case .null: break
        case .object(let choice):
            guard case .string(let type)? = choice["type"] else {
                throw RequestFieldError(field: "tool_choice.type", message: "tool_choice has no type; \(usage)")
            }
            try allow(["type", "name", "disable_parallel_tool_use"], in: choice, field: "tool_choice")
            switch type {
            case "auto": offer.choice = .auto
            case "any": offer.choice = .required
            case "none": offer.choice = .none
            case "tool":
                guard case .string(let name)? = choice["name"] else {
                    throw RequestFieldError(field: "tool_choice.name", message: "tool_choice of type tool names no tool; give its name")
                }
                guard tools.contains(where: { $0.name == name }) else {
                    throw RequestFieldError(field: "tool_choice.name", message: "tool_choice names \(name), which tools does not list"
                                                + (tools.isEmpty ? "" : "; the tools are \(tools.map(\.name).joined(separator: ", "))"))
                }
                offer.choice = .named(name)
            default: throw RequestFieldError(field: "tool_choice.type", message: "tool_choice.type '\(type)' is not one Tide knows; \(usage)")
            }
            switch choice["disable_parallel_tool_use"] {
            case nil, .null?: break
            case .bool(let disabled)?: offer.parallel = !disabled
            default: throw RequestFieldError(field: "tool_choice.disable_parallel_tool_use",
                                             message: "tool_choice.disable_parallel_tool_use must be true or false")
            }
        default: throw RequestFieldError(field: "tool_choice", message: "tool_choice must be an object; \(usage)")
        }
        return offer
    }
}
