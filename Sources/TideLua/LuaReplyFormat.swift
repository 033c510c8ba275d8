import TideCore
import TideFormat

/// `prompt.params.format` in `on_prompt`: the reply format as Lua sees and sets it.
///
/// It is `nil` (free text), the string `"json"` (any JSON object), `{json_schema = S}` where S
/// is a schema as JSON text or as a Lua table, or `{grammar = G}` where G is GBNF text. A schema
/// given as a table lists an object's properties in sorted key order (Lua tables keep no order);
/// give JSON text to choose the order.
extension LuaPlugin {
    /// `format` as `on_prompt` is shown it.
    static func luaFormat(_ format: ReplyFormat?) -> LuaValue {
        switch format?.kind {
        case nil: .nil
        case .json: .string("json")
        case .jsonSchema: .table(array: [], fields: ["json_schema": .string(format!.definition)])
        case .grammar: .table(array: [], fields: ["grammar": .string(format!.definition)])
        }
    }

    /// The format `on_prompt` left in `prompt.params.format`, `base` when it is unchanged. A value
    /// of the wrong shape, a schema Tide cannot enforce and a grammar with a mistake are errors.
    static func format(from value: LuaValue, over base: ReplyFormat?) throws(LuaError) -> ReplyFormat? {
        if value == luaFormat(base) { return base }
        let field = "prompt.params.format"
        do {
            switch value {
            case .nil: return nil
            case .string("json"): return .json
            case .string("text"): return nil
            case .table(let array, let fields) where array.isEmpty && fields.count == 1:
                if let schema = fields["json_schema"] {
                    if let text = schema.string { return try .jsonSchema(text) }
                    return try .jsonSchema(try json(from: schema, at: "json_schema"))
                }
                if let grammar = fields["grammar"] {
                    guard let text = grammar.string else {
                        throw LuaError(.runtime, "on_prompt set \(field).grammar to a \(grammar.typeName); it must be GBNF text")
                    }
                    return try .grammar(text)
                }
            default: break
            }
        } catch let error as ReplyFormatError {
            throw LuaError(.runtime, "on_prompt set \(field) to an unusable format: \(error)")
        } catch let error as LuaError {
            throw error
        } catch {
            throw LuaError(.runtime, "on_prompt set \(field): \(error)")
        }
        throw LuaError(.runtime, "on_prompt set \(field) to a \(value.typeName) it cannot use; it must be nil, \"json\", "
            + "{json_schema = SCHEMA} or {grammar = GBNF}")
    }

    /// A Lua value as JSON: a table with only a list part is an array, any other table an object
    /// (its keys sorted). `what` names the value in errors (`on_prompt: the schema table`).
    static func json(from value: LuaValue, at path: String, what: String = "on_prompt: the schema table", depth: Int = 0)
        throws(LuaError) -> JSONValue
    {
        guard depth < 64 else { throw LuaError(.runtime, "\(what) nests deeper than 64 levels at \(path)") }
        switch value {
        case .boolean(let flag): return .bool(flag)
        case .integer(let number): return .number(Double(number))
        case .number(let number) where number.isFinite: return .number(number)
        case .string(let text): return .string(text)
        case .table(let array, let fields) where fields.isEmpty && !array.isEmpty:
            var items: [JSONValue] = []
            for (index, item) in array.enumerated() {
                items.append(try json(from: item, at: "\(path)[\(index + 1)]", what: what, depth: depth + 1))
            }
            return .array(items)
        case .table(let array, let fields) where array.isEmpty:
            var members: [JSONObject.Member] = []
            for key in fields.keys.sorted() {
                members.append(.init(key: key, value: try json(from: fields[key]!, at: "\(path).\(key)", what: what, depth: depth + 1)))
            }
            return .object(JSONObject(members))
        case .uncopied(let why):
            throw LuaError(.runtime, "\(what) holds \(why.description) at \(path), which JSON cannot hold")
        default:
            throw LuaError(.runtime, "\(what) holds a \(value.typeName) at \(path) that JSON cannot "
                + "hold (use a list or a table with string keys, not both)")
        }
    }
}
