import TideCore

extension ToolCall {
    /// The call written as JSON, `{"name": …, "arguments": {…}}` (the arguments may also be a
    /// string holding the object, as some models write them, or be Llama 3's `parameters`),
    /// spaced as written: how the ChatML family writes a call, and what a script's `tool-call:`
    /// turn holds. The text is kept as the call's ``written`` form; its arguments are normalised JSON.
    public init(json: String, id: String) throws(ToolFailure) {
        guard case .object(let object)? = try? JSONValue(parsing: json) else {
            throw ToolFailure("the tool call is not a JSON object: \(Self.excerpt(json))")
        }
        guard case .string(let name)? = object["name"] else {
            throw ToolFailure("the tool call names no tool (\"name\"): \(Self.excerpt(json))")
        }
        var arguments = object["arguments"] ?? object["parameters"] ?? .object(JSONObject([]))
        if case .string(let text) = arguments, let parsed = try? JSONValue(parsing: text) { arguments = parsed }
        guard case .object = arguments else {
            throw ToolFailure("the arguments of the call of \(name) are not a JSON object: \(Self.excerpt(json))")
        }
        self.init(id: id, name: name, arguments: arguments.text, written: json)
    }

    /// The call as JSON: as the model wrote it, else `{"name": …, "arguments": {…}}` as the
    /// chat templates write it (`tojson`).
    public var json: String { written ?? canonicalJSON(argumentsKey: "arguments") }

    /// The call as a family that puts the arguments under `argumentsKey` writes it: as written,
    /// when it was written that way (by the model), else as the chat templates write it.
    func json(argumentsKey: String) -> String {
        if let written, case .object(let object)? = try? JSONValue(parsing: written), object[argumentsKey] != nil { return written }
        return canonicalJSON(argumentsKey: argumentsKey)
    }

    /// `{"name": …, "KEY": {…}}`, spaced as the chat templates' `tojson` spaces it.
    func canonicalJSON(argumentsKey: String) -> String {
        let arguments = (try? JSONValue(parsing: self.arguments)).map { $0.dumped() } ?? self.arguments
        return "{\"name\": \(JSONValue.string(name).text), \"\(argumentsKey)\": \(arguments)}"
    }

    /// `text` shortened for an error message.
    static func excerpt(_ text: some StringProtocol) -> String {
        text.count > 120 ? String(text.prefix(120)) + "…" : String(text)
    }
}
