import TideCore
extension ConversationScript {
    /// The script as text, in the canonical spelling: parsing it gives the same items back. A
    /// line written with variables (``ScriptEntry/written``) is printed as it was written.
    public func printed() -> String {
        entries.map { ($0.written ?? $0.item.printed) + "\n" }.joined()
    }
}

extension ScriptItem {
    /// This item's lines in the canonical spelling (a block spans several), without the last newline.
    public var printed: String {
        switch self {
        case .blank: ""
        case .comment(let text): "#" + text
        case .directive(let directive): directive.printed
        case .turn(let turn): "\(turn.role.rawValue):" + Self.content(turn.text)
        case .generated(let record):
            "@generated stop=\(QuotedString.quote(record.stopReason)) tokens=\(record.tokens)" + (record.rounds > 0 ? " rounds=\(record.rounds)" : "")
                + record.verdicts.map {
                    "\n@verdict \($0.passed ? "pass" : "fail") \(QuotedString.quote($0.rubric)) \(QuotedString.quote($0.reason))"
                }.joined()
        case .expectation(let expectation): expectation.printed
        }
    }

    /// Text after `role:` or `expect-lua:`: on the line when it fits there, else a `"""` block.
    static func content(_ text: String) -> String {
        let fitsOnTheLine = !text.unicodeScalars.contains("\n") && text.trimmingBlanks() == text
            && !text.hasPrefix("\"\"\"")
        if fitsOnTheLine { return text.isEmpty ? "" : " " + text }
        let lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { bytes in
            let line = String(decoding: bytes, as: UTF8.self)
            return line.hasPrefix("\\") || line.trimmingBlanks() == "\"\"\"" ? "\\" + line : line
        }
        return " \"\"\"\n" + lines.joined(separator: "\n") + "\n\"\"\""
    }
}

extension Directive {
    var printed: String {
        switch self {
        case .name(let text): "@name \(text)"
        case .description(let text): "@description \(text)"
        case .model(let text): "@model \(text)"
        case .judge(let target): "@judge \(target)"
        case .contextSize(let size): "@ctx-size \(size)"
        case .template(let text): "@template \(text)"
        case .toolFormat(let format): "@tool-format \(format.rawValue)"
        case .plugin(let spec): "@plugin \(spec)"
        case .unload(let name): "@unload \(name)"
        case .parameter(let setting): setting.printed
        case .format(let setting): setting.printed
        case .minimumPassRate(let rate): "@min-pass \(rate)"
        case .variable(let name, let value):
            "@var \(name) " + (value.isEmpty || value.trimmingBlanks() != value || value.hasPrefix("\"") || value.contains(where: \.isNewline)
                ? QuotedString.quote(value) : value)
        case .data(let file): "@data \(file)"
        case .mcp(let server): "@mcp \(server)"
        case .tolerance(let tolerance): "@tolerance \(tolerance == tolerance.rounded() ? String(Int(tolerance)) : String(tolerance))"
        }
    }
}

extension FormatSetting {
    /// The setting as a script writes it: `@format json`, `@json-schema person.json`.
    public var printed: String {
        switch self {
        case .text: "@format text"
        case .json: "@format json"
        case .jsonSchema(let file): "@json-schema \(file)"
        case .grammar(let file): "@grammar \(file)"
        }
    }
}

extension ParameterSetting {
    /// The setting as a script writes it: `@temperature 0.6`, `@stop "a" "b"`, `@seed random`.
    public var printed: String { "@\(self)" }
}

extension Expectation {
    var printed: String {
        let argument = check.argument
        switch (check.kind.form, argument) {
        case (.luaExpression, .text(let code)): return "expect-lua:" + ScriptItem.content(code)
        case (.word, .text(let text)), (.schemaFile, .text(let text)), (.schema, .text(let text)):
            return line(Self.readsBackBare(text) ? text : QuotedString.quote(text))
        case (_, .none): return line(nil)
        case (_, .text(let text)): return line(QuotedString.quote(text))
        case (_, .texts(let texts)): return line(texts.map(QuotedString.quote).joined(separator: " "))
        case (.count(let unit), .count(let bound)): return line("\(bound)" + (unit.map { " " + $0 } ?? ""))
        case (_, .count(let bound)): return line("\(bound)")
        case (_, .measure(let bound)): return line("\(bound)")
        case (_, .textAndMeasure(let text, let bound)): return line("\(QuotedString.quote(text)) \(bound)")
        }
    }

    /// `expect: [not ]KIND[ ARGUMENT]`.
    private func line(_ argument: String?) -> String {
        "expect: \(negated ? "not " : "")\(check.kind.name)" + (argument.map { " " + $0 } ?? "")
    }

    /// Whether `text`, written bare, reads back as itself: not empty, not quoted, without white
    /// space around it or control characters.
    private static func readsBackBare(_ text: String) -> Bool {
        !text.isEmpty && !text.hasPrefix("\"") && text.trimmingBlanks() == text && !text.unicodeScalars.contains { $0.value < 0x20 }
    }
}
