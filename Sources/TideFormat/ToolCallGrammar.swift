import TideCore

/// The grammar of tool calls, from the tools' schemas: one call is a JSON object naming one of
/// the tools offered (`"name"`, a constant) with its arguments (under `argumentsKey`: `arguments`
/// for the ChatML family, `parameters` for Llama 3) valid against that tool's schema. Each
/// family's reader wraps it in its own markup (``withRoot(_:)``).
struct ToolCallGrammar {
    /// The GBNF rules, one per line.
    private var lines: [String]

    /// One call of a tool of `tools` (only the one `choice` names); its rule is the root.
    static func objects(for tools: [ToolDefinition], choice: ToolChoice, argumentsKey: String) throws(ToolFailure) -> ToolCallGrammar {
        let offered = if case .named(let name) = choice { tools.filter { $0.name == name } } else { tools }
        var branches: [JSONValue] = []
        for tool in offered {
            let parameters: JSONValue
            do {
                parameters = try JSONValue(parsing: tool.parameters)
            } catch {
                throw ToolFailure("tool \(tool.name): its parameters are not JSON: \(error)")
            }
            do {
                _ = try JSONSchema(parameters)
            } catch {
                throw ToolFailure("the parameters of \(tool.name) cannot be enforced: \(error)")
            }
            branches.append(.object(JSONObject([
                .init(key: "type", value: .string("object")),
                .init(key: "properties", value: .object(JSONObject([
                    .init(key: "name", value: .object(JSONObject([.init(key: "const", value: .string(tool.name))]))),
                    .init(key: argumentsKey, value: resource(parameters, named: tool.name)),
                ]))),
                .init(key: "required", value: .array([.string("name"), .string(argumentsKey)])),
                .init(key: "additionalProperties", value: .bool(false)),
            ])))
        }
        let call = branches.count == 1 ? branches[0] : .object(JSONObject([.init(key: "anyOf", value: .array(branches))]))
        do {
            return ToolCallGrammar(lines: try JSONSchema(call).grammar.text.split(separator: "\n").map(String.init))
        } catch {
            throw ToolFailure("the tools' parameters cannot be enforced: \(error)")
        }
    }

    /// `parameters` as a schema resource of its own (an `$id`, the last of its members, so the one
    /// read), so that its references (`#/$defs/…`) still point into it once it is embedded in
    /// the schema of a call.
    private static func resource(_ parameters: JSONValue, named name: String) -> JSONValue {
        guard case .object(var object) = parameters else { return parameters }
        object.members.append(.init(key: "$id", value: .string("urn:tide:tool:\(name)")))
        return .object(object)
    }

    /// Gives the root rule another name, for a new root to use it.
    mutating func renameRoot(to name: String) {
        let prefix = "\(Grammar.rootRule) ::= "
        guard let index = lines.firstIndex(where: { $0.hasPrefix(prefix) }) else { return }
        lines[index] = "\(name) ::= " + lines[index].dropFirst(prefix.count)
    }

    /// The rules as GBNF text.
    var text: String { lines.joined(separator: "\n") + "\n" }

    /// The rules with a new root, `body`, checked.
    func withRoot(_ body: String) throws(ToolFailure) -> String {
        let text = "\(Grammar.rootRule) ::= \(body)\n" + self.text
        do {
            _ = try Grammar(gbnf: text)
        } catch {
            throw ToolFailure("the tools' grammar is not valid: \(error)")
        }
        return text
    }
}
