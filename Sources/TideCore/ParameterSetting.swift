/// One generation parameter set to a value, as a script's directive (`@temperature 0`), the
/// REPL's `/set`, a command-line option or a model preset sets it. Its value is always valid
/// for its parameter (``ParameterDeclaration``).
public struct ParameterSetting: Sendable, Hashable, CustomStringConvertible {
    /// The parameter set.
    public let declaration: ParameterDeclaration
    /// Its value, in its canonical JSON shape.
    public let value: ParameterValue

    /// The parameter `name` set to `value`; throws when `name` is not a parameter or `value` is
    /// not one of its values.
    public init(name: String, value: ParameterValue) throws(InvalidParameterError) {
        guard let declaration = GenerationParameters.declaration(named: name) else {
            throw InvalidParameterError(unknown: name)
        }
        var probe = GenerationParameters()
        try declaration.set(value, in: &probe)
        self.init(declaration, canonical: declaration.value(in: probe))
    }

    /// The parameter `name` set to `value`, both known to be valid (a setting written in code).
    public init(_ name: String, _ value: ParameterValue) {
        do {
            try self.init(name: name, value: value)
        } catch {
            preconditionFailure("\(error)")
        }
    }

    private init(_ declaration: ParameterDeclaration, canonical value: ParameterValue) {
        self.declaration = declaration
        self.value = value
    }

    /// The parameter's name, as in ``names``.
    public var name: String { declaration.name }

    /// Sets this parameter in `parameters`.
    public func apply(to parameters: inout GenerationParameters) {
        do {
            try declaration.set(value, in: &parameters)
        } catch {
            preconditionFailure("a setting's value is valid for its parameter: \(error)")
        }
    }

    /// As a directive writes it, without the `@`: `temperature 0.6`, `stop "a" "b"`.
    public var description: String {
        let text = declaration.text(of: value)
        return name + (text.isEmpty ? "" : " " + text)
    }

    /// The same parameter at the same value.
    public static func == (left: ParameterSetting, right: ParameterSetting) -> Bool {
        left.name == right.name && left.value == right.value
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(value)
    }

    /// The parameter names, as directives (`@top-k`) and the REPL's `/set top-k` spell them.
    public static let names = GenerationParameters.declarations.map(\.name)

    /// Every parameter of `parameters` as a setting, in the order of ``names``.
    public static func all(of parameters: GenerationParameters) -> [ParameterSetting] {
        GenerationParameters.declarations.map { ParameterSetting($0, canonical: $0.value(in: parameters)) }
    }

    /// The parameters of `parameters` that differ from Tide's defaults, in the order of ``names``.
    public static func changed(in parameters: GenerationParameters) -> [ParameterSetting] {
        let defaults = all(of: GenerationParameters())
        return all(of: parameters).filter { !defaults.contains($0) }
    }

    /// The value that the text form gives for `name`, as `@name text` reads it.
    public init(name: String, text: some StringProtocol) throws(InvalidParameterError) {
        guard let declaration = GenerationParameters.declaration(named: name) else {
            throw InvalidParameterError(unknown: name)
        }
        self.init(declaration, canonical: try declaration.value(reading: text))
    }
}
