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
        let not = negated ? "not " : ""
        switch check {
        case .contains(let text, let ignoringCase): return "expect: \(not)\(ignoringCase ? "icontains" : "contains") \(QuotedString.quote(text))"
        case .matches(let place, let text, let ignoringCase):
            return "expect: \(not)\(ignoringCase ? "i" : "")\(place.rawValue) \(QuotedString.quote(text))"
        case .containsAny(let texts, let ignoringCase):
            return "expect: \(not)\(ignoringCase ? "i" : "")contains-any " + texts.map(QuotedString.quote).joined(separator: " ")
        case .containsAll(let texts, let ignoringCase):
            return "expect: \(not)\(ignoringCase ? "i" : "")contains-all " + texts.map(QuotedString.quote).joined(separator: " ")
        case .words(let bound): return "expect: \(not)words \(bound)"
        case .sentences(let bound): return "expect: \(not)sentences \(bound)"
        case .timeToFirstToken(let bound): return "expect: \(not)ttft \(bound) ms"
        case .rate(let bound): return "expect: \(not)rate \(bound) tok/s"
        case .regex(let pattern): return "expect: \(not)regex \(QuotedString.quote(pattern))"
        case .length(let bound): return "expect: \(not)length \(bound)"
        case .tokens(let bound): return "expect: \(not)tokens \(bound)"
        case .stop(let reason):
            let bare = !reason.isEmpty && reason.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || "0123456789:_.-".unicodeScalars.contains($0) }
            return "expect: \(not)stop \(bare ? reason : QuotedString.quote(reason))"
        case .lua(let code): return "expect-lua:" + ScriptItem.content(code)
        case .json: return "expect: \(not)json"
        case .jsonSchema(let file):
            let bare = !file.hasPrefix("\"") && file.trimmingBlanks() == file && !file.unicodeScalars.contains { $0.value < 0x20 }
            return "expect: \(not)json-schema \(bare ? file : QuotedString.quote(file))"
        case .sameAsRecorded: return "expect: \(not)same-as-recorded"
        case .toolCall(let name): return "expect: \(not)tool-call \(name)"
        case .toolArguments(let schema): return "expect: \(not)tool-args \(schema)"
        case .perplexity(let bound): return "expect: \(not)perplexity \(bound)"
        case .meanLogprob(let bound): return "expect: \(not)mean-logprob \(bound)"
        case .similar(let text, let bound): return "expect: \(not)similar \(QuotedString.quote(text)) \(bound)"
        case .similarToRecorded(let bound): return "expect: \(not)similar-to-recorded \(bound)"
        case .judge(let rubric): return "expect: \(not)judge \(QuotedString.quote(rubric))"
        case .toolRounds(let bound): return "expect: \(not)tool-rounds \(bound)"
        }
    }
}
