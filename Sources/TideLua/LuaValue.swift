/// A Lua value copied into Swift (functions and userdata are not copied).
public enum LuaValue: Sendable, Hashable {
    case `nil`
    case boolean(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    /// A table: its array part (keys 1…n) and its other keys that are strings or whole numbers
    /// (these written as their digits).
    case table(array: [LuaValue], fields: [String: LuaValue])
    /// A function, thread or userdata, named by its type.
    case opaque(String)
    /// A table a copy did not follow (``LuaState/value(at:)``), and why.
    case uncopied(UncopiedTable)

    /// Why a table was not copied.
    public enum UncopiedTable: Sendable, Hashable {
        /// The table holds itself (`t.self = t`), here or deeper: a cycle.
        case cycle
        /// It is nested deeper than ``LuaState/copyDepth``.
        case tooDeep
        /// The copy already holds ``LuaState/copyLimit`` values.
        case tooLarge

        /// What an error says of it.
        public var description: String {
            switch self {
            case .cycle: "a cycle (a table that holds itself)"
            case .tooDeep: "a table nested deeper than \(LuaState.copyDepth) levels"
            case .tooLarge: "more than \(LuaState.copyLimit) values"
            }
        }
    }

    /// The value as a string, if it is one.
    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The value as a number, if it is one (integers included).
    public var number: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let value): value
        default: nil
        }
    }

    /// The value as a whole number, if it is one that fits an `Int` (`3` and `3.0`, not `3.5`).
    public var wholeNumber: Int? {
        switch self {
        case .integer(let value): Int(exactly: value)
        case .number(let value): Int(exactly: value)
        default: nil
        }
    }

    /// A field of a table value.
    public subscript(field: String) -> LuaValue {
        if case .table(_, let fields) = self { return fields[field] ?? .nil }
        return .nil
    }

    /// Lua's name for the value's type.
    public var typeName: String {
        switch self {
        case .nil: "nil"
        case .boolean: "boolean"
        case .integer, .number: "number"
        case .string: "string"
        case .table: "table"
        case .opaque(let type): type
        case .uncopied: "table"
        }
    }
}
