/// The JSON Schema primitive types (`integer` being a number with no fractional part).
enum JSONType: String, Sendable, Hashable, CaseIterable {
    case object, array, string, number, integer, boolean, null

    /// Whether `value` is of this type.
    func admits(_ value: JSONValue) -> Bool {
        switch (self, value) {
        case (.object, .object), (.array, .array), (.string, .string), (.number, .number), (.boolean, .bool), (.null, .null):
            true
        case (.integer, .number(let number)): number.isFinite && number.rounded() == number
        default: false
        }
    }

    /// The type JSON Schema names for `value` (`integer` for integral numbers).
    static func of(_ value: JSONValue) -> JSONType {
        switch value {
        case .null: .null
        case .bool: .boolean
        case .number: JSONType.integer.admits(value) ? .integer : .number
        case .string: .string
        case .array: .array
        case .object: .object
        }
    }
}
