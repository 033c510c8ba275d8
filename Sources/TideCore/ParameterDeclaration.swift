/// One generation parameter, declared once (in ``GenerationParameters/declarations``): its name,
/// its type and range, its one-line help, and how each surface writes it. The command line
/// (`--top-k 5`), `/set` and its completion, `/show`, script directives and the transcript printer
/// (`@top-k 5`), presets and registry entries, plugins' `prompt.params`, the log, `--json`,
/// `tide serve`'s request fields and `--remote`'s outgoing ones all take the parameter from here.
public struct ParameterDeclaration: Sendable {
    /// The name, as options (`--top-k`), directives (`@top-k`), `/set` and presets spell it.
    public let name: String
    /// What it does, in one line (without its default, which ``help`` adds).
    public let summary: String
    /// Other names a request may give it (llama-server's or OpenAI's), besides ``field``.
    public let aliases: [String]
    /// How requests carry it.
    public let request: RequestUse
    let codec: AnyParameterCodec

    /// How a request carries a parameter.
    public enum RequestUse: Sendable {
        /// `tide serve` reads it; `--remote` always sends it (the fields Tide sent before the other
        /// samplers, which OpenAI-compatible servers take or ignore).
        case sent
        /// `tide serve` reads it; `--remote` sends it only when it is not the default, so that a
        /// server that does not know the field never sees it unless it is asked for.
        case sentWhenChanged
        /// `tide serve` reads it; `--remote` does not send it: Tide itself acts on it around the
        /// server's replies.
        case local
        /// Requests set it in fields read apart: `tool_choice` and `parallel_tool_calls` come with
        /// the tools; `logprobs` takes each endpoint's own shape (a chat's `logprobs` and
        /// `top_logprobs`, a text completion's `logprobs`).
        case ownFields
    }

    /// The parameter at `keyPath` of ``GenerationParameters``, its values read and written by
    /// `codec`.
    init<Value>(_ name: String, _ keyPath: WritableKeyPath<GenerationParameters, Value> & Sendable, _ codec: ParameterCodec<Value>,
                _ summary: String, aliases: [String] = [], request: RequestUse = .sentWhenChanged)
    {
        self.name = name
        self.summary = summary
        self.aliases = aliases
        self.request = request
        self.codec = AnyParameterCodec(keyPath, codec)
    }

    /// The name as JSON, plugins and requests spell it: `top_k`.
    public var field: String { Self.field(of: name) }

    /// `name` as JSON, plugins and requests spell it: `-` as `_`.
    static func field(of name: String) -> String { String(name.map { $0 == "-" ? "_" : $0 }) }

    /// What a value must be: "a number in (0, 1]".
    public var requirement: String { codec.requirement }

    /// What a value looks like in help: `number`, `text`.
    public var placeholder: String { codec.placeholder }

    /// Whether the command line takes the option several times, one element each (`--stop`).
    public var isRepeatable: Bool { codec.isRepeatable }

    /// The one-line help with the default: "Sampling temperature; 0 is greedy (default: 0.6)."
    public var help: String {
        let words = codec.words(codec.read(GenerationParameters()))
        let shown = words.isEmpty ? "none" : words.joined(separator: " ")
        return "\(summary) (default: \(shown))."
    }

    /// The value in `parameters`.
    public func value(in parameters: GenerationParameters) -> ParameterValue { codec.read(parameters) }

    /// Sets the value in `parameters`: a value of the wrong type or out of range is an error that
    /// names the parameter and says what it must be.
    public func set(_ value: ParameterValue, in parameters: inout GenerationParameters) throws(InvalidParameterError) {
        guard codec.write(value, &parameters) else {
            throw InvalidParameterError(name: name, value: Self.shown(value), requirement: requirement)
        }
    }

    /// The value its text form gives: the words after `@top-k` or `/set top-k` (a list's
    /// elements, quoted where they hold blanks), each checked as ``set(_:in:)`` checks.
    public func value(reading text: some StringProtocol) throws(InvalidParameterError) -> ParameterValue {
        // A long value is shown by its start: the message names it, it does not repeat it.
        let shown = text.count > 200 ? "'\(text.prefix(200))…' (\(text.count) characters)" : "'\(text)'"
        guard let words = ParameterText.words(in: text) else {
            throw InvalidParameterError(name: name, value: shown, requirement: "text whose quoted strings are closed")
        }
        return try value(words: words, shown: shown)
    }

    /// The value that the option's arguments give: each a whole element of a list (`--stop END`),
    /// or the last one of a single value.
    public func value(arguments: [String]) throws(InvalidParameterError) -> ParameterValue {
        let words = codec.quotesArguments ? arguments.map(QuotedString.quote) : arguments
        let given = isRepeatable ? words : Array(words.suffix(1))
        return try value(words: given, shown: "'\(given.joined(separator: " "))'")
    }

    /// The value `words` of the text form give, in its canonical shape; else an error that shows
    /// them as `shown`.
    private func value(words: [String], shown: String) throws(InvalidParameterError) -> ParameterValue {
        var probe = GenerationParameters()
        guard let value = codec.fromWords(words), codec.write(value, &probe) else {
            throw InvalidParameterError(name: name, value: shown, requirement: requirement)
        }
        return codec.read(probe)
    }

    /// The value as a directive writes it, after the name: `0.6`, `"a" "b"`, `random`; empty for
    /// an empty list.
    public func text(of value: ParameterValue) -> String {
        codec.words(value).joined(separator: " ")
    }

    /// A value as errors show it.
    static func shown(_ value: ParameterValue) -> String {
        switch value {
        case .null: "null"
        case .flag(let flag): String(flag)
        case .number(let number): ParameterText.number(number)
        case .text(let text): "'\(text)'"
        case .list, .map: value.kindName
        }
    }
}

/// A parameter's codec with its value type hidden, bound to the parameter's place in
/// ``GenerationParameters``.
struct AnyParameterCodec: Sendable {
    let requirement: String
    let placeholder: String
    let isRepeatable: Bool
    let quotesArguments: Bool
    let read: @Sendable (GenerationParameters) -> ParameterValue
    let write: @Sendable (ParameterValue, inout GenerationParameters) -> Bool
    let fromWords: @Sendable ([String]) -> ParameterValue?
    let words: @Sendable (ParameterValue) -> [String]

    init<Value>(_ keyPath: WritableKeyPath<GenerationParameters, Value> & Sendable, _ codec: ParameterCodec<Value>) {
        requirement = codec.requirement
        placeholder = codec.placeholder
        isRepeatable = codec.isRepeatable
        quotesArguments = codec.quotesArguments
        read = { codec.encode($0[keyPath: keyPath]) }
        write = { value, parameters in
            guard let decoded = codec.decode(value) else { return false }
            parameters[keyPath: keyPath] = decoded
            return true
        }
        fromWords = codec.fromWords
        words = { value in codec.decode(value).map(codec.words) ?? [] }
    }
}
