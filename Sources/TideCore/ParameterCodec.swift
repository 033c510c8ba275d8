/// How the values of one type of parameter are checked, read and written: as JSON-shaped
/// ``ParameterValue``s (requests, logs, presets, plugins) and as the words of their text form
/// (options, directives, `/set`).
struct ParameterCodec<Value>: Sendable {
    /// What a value must be, in words.
    let requirement: String
    /// What a value looks like in help.
    let placeholder: String
    /// A value from JSON; `nil` for one of the wrong type or out of range.
    let decode: @Sendable (ParameterValue) -> Value?
    /// The JSON of a value.
    let encode: @Sendable (Value) -> ParameterValue
    /// The JSON-shaped value that the words of the text form give; `nil` when they give none.
    let fromWords: @Sendable ([String]) -> ParameterValue?
    /// The words of the text form.
    let words: @Sendable (Value) -> [String]
    /// Whether the option is given once per element.
    var isRepeatable = false
    /// Whether an option's argument is an element as it is (not in the text form's quotes).
    var quotesArguments = false
}

extension ParameterCodec where Value == Double {
    /// A number in `range`; `rule` says the range in words.
    static func number(_ range: ClosedRange<Double>, _ rule: String) -> Self {
        ParameterCodec(requirement: rule, placeholder: "number",
                       decode: { value in
                           guard case .number(let number) = value, range.contains(number) else { return nil }
                           return number
                       },
                       encode: { .number($0) },
                       fromWords: { words in words.count == 1 ? Double(words[0]).map(ParameterValue.number) : nil },
                       words: { [ParameterText.number($0)] })
    }

    /// A number at least `lower`, at most the largest 32-bit float (llama.cpp's type).
    static func number(atLeast lower: Double, _ rule: String) -> Self {
        number(lower...Double(Float.greatestFiniteMagnitude), rule)
    }
}

extension ParameterCodec where Value == Int {
    /// A whole number in `range`.
    static func whole(_ range: ClosedRange<Int>, _ rule: String? = nil) -> Self {
        ParameterCodec(requirement: rule ?? "a whole number from \(range.lowerBound) to \(range.upperBound)", placeholder: "n",
                       decode: { value in
                           guard case .number(let number) = value, let whole = Int(exactly: number), range.contains(whole) else { return nil }
                           return whole
                       },
                       encode: { .number(Double($0)) },
                       fromWords: { words in words.count == 1 ? Int(words[0]).map { .number(Double($0)) } : nil },
                       words: { [String($0)] })
    }
}

extension ParameterCodec where Value == Int? {
    /// A whole number in `range`, or `none` for no value (written as `none` too).
    static func whole(_ range: ClosedRange<Int>, orNone none: Int, _ rule: String) -> Self {
        ParameterCodec(requirement: rule, placeholder: "n",
                       decode: { value in
                           switch value {
                           case .null: return .some(nil)
                           case .number(let number):
                               guard let whole = Int(exactly: number) else { return nil }
                               if whole == none { return .some(nil) }
                               // Out of range is no value at all, not the value "none".
                               guard range.contains(whole) else { return nil }
                               return .some(whole)
                           default: return nil
                           }
                       },
                       encode: { $0.map { .number(Double($0)) } ?? .null },
                       fromWords: { words in words.count == 1 ? Int(words[0]).map { .number(Double($0)) } : nil },
                       words: { [String($0 ?? none)] })
    }
}

extension ParameterCodec where Value == UInt32? {
    /// A random generator's seed: a whole number, or `random` (also `null` and `-1`, as llama-server
    /// takes it) for a fresh one each reply. llama.cpp reads 4294967295 as "random" too, so a
    /// fixed seed stops below it.
    static var seed: Self {
        ParameterCodec(requirement: "a whole number from 0 to \(UInt32.max - 1), or random", placeholder: "n",
                       decode: { value in
                           switch value {
                           case .null, .text("random"), .number(-1): return .some(nil)
                           case .number(let number):
                               guard let seed = UInt32(exactly: number), seed < UInt32.max else { return nil }
                               return .some(seed)
                           default: return nil
                           }
                       },
                       encode: { $0.map { .number(Double($0)) } ?? .null },
                       fromWords: { words in
                           guard words.count == 1 else { return nil }
                           return words[0] == "random" ? .null : Double(words[0]).map(ParameterValue.number)
                       },
                       words: { [$0.map(String.init) ?? "random"] })
    }
}

extension ParameterCodec where Value == Bool {
    /// `true` or `false`.
    static var flag: Self {
        ParameterCodec(requirement: "true or false", placeholder: "true|false",
                       decode: { value in
                           guard case .flag(let flag) = value else { return nil }
                           return flag
                       },
                       encode: { .flag($0) },
                       fromWords: { words in words.count == 1 ? Bool(words[0]).map(ParameterValue.flag) : nil },
                       words: { [String($0)] })
    }
}

extension ParameterCodec where Value == [String] {
    /// A list of at most `count` non-empty strings of at most `bytes` bytes of UTF-8 each (one
    /// string alone reads as a list of one, as OpenAI's `stop` is); `nonEmpty` when the list must
    /// hold at least one. The bounds keep what one request makes the sampler prepare small.
    static func texts(nonEmpty: Bool = false, atMost count: Int, ofAtMostBytes bytes: Int) -> Self {
        ParameterCodec(requirement: (nonEmpty ? "a non-empty list of non-empty strings" : "a list of non-empty strings")
                           + ", at most \(count) of them, of at most \(bytes) bytes (UTF-8) each",
                       placeholder: "text",
                       decode: { value in
                           let texts: [String]
                           switch value {
                           case .text(let text): texts = [text]
                           case .list(let list):
                               texts = list.compactMap {
                                   guard case .text(let text) = $0 else { return nil }
                                   return text
                               }
                               guard texts.count == list.count else { return nil }
                           default: return nil
                           }
                           guard !texts.contains(""), !nonEmpty || !texts.isEmpty, texts.count <= count,
                                 texts.allSatisfy({ $0.utf8.count <= bytes }) else { return nil }
                           return texts
                       },
                       encode: { .list($0.map(ParameterValue.text)) },
                       fromWords: { words in
                           var texts: [ParameterValue] = []
                           for word in words {
                               guard let text = ParameterText.unquoted(word) else { return nil }
                               texts.append(.text(text))
                           }
                           return .list(texts)
                       },
                       words: { $0.map(QuotedString.quote) },
                       isRepeatable: true, quotesArguments: true)
    }
}

extension ParameterCodec where Value == ToolChoice {
    /// `auto`, `none`, `required` or a tool's name.
    static var toolChoice: Self {
        ParameterCodec(requirement: "auto, none, required or a tool's name", placeholder: "choice",
                       decode: { value in
                           guard case .text(let text) = value, !text.isEmpty else { return nil }
                           let choice = ToolChoice(text)
                           if case .named(let name) = choice, ToolDefinition.problem(withName: name) != nil { return nil }
                           return choice
                       },
                       encode: { .text($0.description) },
                       fromWords: { words in words.count == 1 ? .text(words[0]) : nil },
                       words: { [$0.description] })
    }
}
