import CLua
import CLuaShim
import TideCore
import TideFormat

/// A plugin's tools: `tools = { NAME = { description = "…", parameters = SCHEMA, run = function(args) … end } }`.
/// `run` is called like a hook — the sandbox's instruction, time and memory limits apply — with
/// the call's arguments as a table (checked against the tool's schema first), and returns the result: a string as it is, a number or a
/// boolean as text, a table as JSON. An error (or a limit reached) becomes a failed result that
/// says why, which the model sees.
extension LuaPlugin {
    /// The declared tools and their `run` functions' references; reads the plugin table at the
    /// top of `lua`'s stack.
    static func declaredTools(_ value: LuaValue, in lua: LuaState) throws(LuaError) -> ([ToolDefinition], [String: Int32]) {
        guard value != .nil else { return ([], [:]) }
        guard case .table(let array, let fields) = value, array.isEmpty else {
            throw LuaError(.runtime, "tools must be a table of tools by name (tools = { add = { … } }), not a \(value.typeName)")
        }
        var tools: [ToolDefinition] = []
        var functions: [String: Int32] = [:]
        for name in fields.keys.sorted() {
            if let problem = ToolDefinition.problem(withName: name) { throw LuaError(.runtime, "tools: \(problem)") }
            guard case .table(_, let tool) = fields[name]! else {
                throw LuaError(.runtime, "tools.\(name) must be a table with description, parameters and run")
            }
            guard case .opaque("function") = tool["run"] ?? .nil else {
                throw LuaError(.runtime, "tools.\(name).run must be a function(args) that returns the result")
            }
            let unknown = tool.keys.filter { !["description", "parameters", "run"].contains($0) }.sorted()
            guard unknown.isEmpty else {
                throw LuaError(.runtime, "tools.\(name) has unknown fields \(unknown.joined(separator: ", ")); a tool has description, parameters and run")
            }
            let parameters = try json(from: tool["parameters"] ?? .table(array: [], fields: ["type": .string("object")]),
                                      at: "tools.\(name).parameters", what: "tools.\(name).parameters")
            if let problem = ToolDefinition.problem(withParameters: parameters) {
                throw LuaError(.runtime, "tools.\(name).parameters: \(problem); write it as a table")
            }
            let definition = ToolDefinition(name: name, description: tool["description"]?.string ?? "", parameters: parameters.text)
            do {
                _ = try HermesToolCalls().callGrammar(for: [definition], choice: .auto, parallel: false)
            } catch {
                throw LuaError(.runtime, "tools.\(name): \(error)")
            }
            lua.pushRawField("tools", of: -1)
            lua.pushRawField(name, of: -1)
            lua.pushRawField("run", of: -1)
            functions[name] = luaL_ref(lua.pointer, tide_lua_registryindex())
            tide_lua_pop(lua.pointer, 2)
            tools.append(definition)
        }
        return (tools, functions)
    }

    public func runTool(_ call: ToolCall) throws -> String {
        guard let function = toolFunctions[call.name] else { throw ToolFailure("\(name) has no tool \(call.name)") }
        let arguments: JSONValue
        do {
            arguments = try JSONValue(parsing: call.arguments)
        } catch {
            throw ToolFailure("the arguments are not JSON: \(error)")
        }
        // A local model's calls are valid by construction; a server's may not be.
        if let definition = tools.first(where: { $0.name == call.name }),
           let schema = try? JSONSchema(JSONValue(parsing: definition.parameters)) {
            let violations = schema.violations(of: arguments)
            guard violations.isEmpty else {
                throw ToolFailure("the arguments do not match the parameters of \(call.name): "
                                      + violations.prefix(3).map(\.description).joined(separator: "; "))
            }
        }
        let result: LuaValue
        do {
            result = try withState { lua throws(LuaError) in
                let state = lua.pointer
                let top = lua_gettop(state)
                defer { lua_settop(state, top) }
                lua_rawgeti(state, tide_lua_registryindex(), lua_Integer(function))
                lua.push(Self.lua(arguments))
                try lua.call(arguments: 1, results: 1)
                return lua.value(at: top + 1)
            }
        } catch {
            // The model is told what went wrong, not where in the plugin.
            let message = error.message.firstRange(of: "\nstack traceback:").map { String(error.message[..<$0.lowerBound]) } ?? error.message
            throw ToolFailure(error.kind == .runtime ? message : "the tool was stopped: \(message)")
        }
        switch result {
        case .string(let text): return text
        case .integer(let number): return "\(number)"
        case .number(let number): return JSONValue.number(number).text
        case .boolean(let flag): return flag ? "true" : "false"
        case .nil: return "null"
        case .table, .uncopied:
            do {
                return try Self.json(from: result, at: "result", what: "tool \(call.name)'s result").text
            } catch {
                throw ToolFailure(error.message)
            }
        case .opaque(let type):
            throw ToolFailure("tool \(call.name) returned a \(type), which cannot be given to the model; return a string, a number, "
                + "a boolean or a table")
        }
    }

    /// A JSON value as Lua sees it: objects and arrays as tables, `null` as nil.
    public static func lua(_ value: JSONValue) -> LuaValue {
        switch value {
        case .null: .nil
        case .bool(let flag): .boolean(flag)
        case .number(let number): number.rounded() == number && abs(number) < 9e15 ? .integer(Int64(number)) : .number(number)
        case .string(let text): .string(text)
        case .array(let items): .table(array: items.map(lua), fields: [:])
        case .object(let object): .table(array: [], fields: Dictionary(object.members.map { ($0.key, lua($0.value)) }) { first, _ in first })
        }
    }
}
