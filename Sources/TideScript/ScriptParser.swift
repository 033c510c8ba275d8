import Foundation
import TideCore
import TideFiles
import TideFormat
import TideRegex

extension ConversationScript {
    /// Parses a script (the grammar is in docs/conversations.md), its `{{name}}` references
    /// taking their values from `variables` and its `@var` lines.
    /// A byte-order mark at the start is ignored.
    public init(parsing text: String, variables: ScriptVariables = ScriptVariables()) throws(ScriptParseError) {
        var parser = ScriptParser(text: Self.withoutByteOrderMark(text), variables: variables)
        self.init(entries: try parser.parse())
        self.variables = parser.values
    }

    /// The data file a script's `@data` line names, as written, and the line; `nil` when it has none.
    public static func dataFile(in text: String) -> (file: String, line: Int)? {
        ScriptParser.dataFile(in: withoutByteOrderMark(text))
    }

    /// `text` without a leading byte-order mark, which some editors write.
    private static func withoutByteOrderMark(_ text: String) -> String {
        text.hasPrefix("\u{FEFF}") ? String(text.unicodeScalars.dropFirst()) : text
    }

    /// Parses the bytes of a script file, which must be UTF-8.
    public init(bytes: [UInt8], variables: ScriptVariables = ScriptVariables()) throws(ScriptParseError) {
        if let text = String(validating: bytes, as: UTF8.self) {
            try self.init(parsing: text, variables: variables)
            return
        }
        // Find the first line that is not UTF-8, to say where.
        var line = 1
        var start = 0
        for (offset, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") || offset == bytes.count - 1 {
            let end = byte == UInt8(ascii: "\n") ? offset : offset + 1
            if let valid = Self.validPrefixLength(of: bytes[start..<end]) {
                let column = String(decoding: bytes[start..<(start + valid)], as: UTF8.self).count + 1
                let shown = String(decoding: bytes[start..<end], as: UTF8.self)
                throw ScriptParseError(line: line, column: column, message: "this line is not valid UTF-8 (scripts are UTF-8 text)",
                                       lineText: shown)
            }
            line += 1
            start = offset + 1
        }
        throw ScriptParseError(line: line, column: 1, message: "the file is not valid UTF-8", lineText: "")
    }

    /// How many bytes of `line` are UTF-8 before the first that is not, in one pass; `nil` when all are.
    private static func validPrefixLength(of line: ArraySlice<UInt8>) -> Int? {
        var parser = Unicode.UTF8.ForwardParser()
        var bytes = line.makeIterator()
        var valid = 0
        while true {
            switch parser.parseScalar(from: &bytes) {
            case .valid(let scalar): valid += scalar.count
            case .emptyInput: return nil
            case .error: return valid
            }
        }
    }

    /// The most a script file may hold.
    public static let fileSizeLimit = 16 << 20

    /// Reads and parses a script file; errors name the file. A FIFO, a device or a folder, a
    /// file over ``fileSizeLimit`` and an unreadable file are ``InputFileError``s.
    public init(contentsOf url: URL, variables: ScriptVariables = ScriptVariables()) throws {
        let bytes = try InputFile.contents(of: url.path, what: "script", limit: Self.fileSizeLimit)
        do {
            try self.init(bytes: bytes, variables: variables)
        } catch {
            var located = error
            located.file = url.path
            throw located
        }
    }
}

/// Reads a script line by line, checking each line and the order of turns and expectations.
struct ScriptParser {
    let lines: [String]
    private var number = 0
    private var entries: [ScriptEntry] = []
    /// What the last turn-like item was, for the rules on what may follow what.
    private var last = Last.start
    private var seenTurn = false

    private enum Last {
        case start
        /// A user turn, nothing significant after it yet.
        case user
        /// A user turn with expectations after it: it generates.
        case generatingUser
        case fixedAssistant
        case recordedAssistant
        case system
        case directive
        /// A `tool-call:` turn.
        case toolCall
        /// A `tool:` turn.
        case toolResult
        /// A `reasoning:` turn: its answer comes next.
        case reasoning
    }

    /// The calls and results of the round of tool calls being read, and the rounds of the exchange.
    private var roundCalls = 0
    private var roundResults = 0
    private var exchangeRounds = 0

    /// Where references take their values, besides `@var` lines.
    private let variables: ScriptVariables
    /// The `@var` lines read so far.
    private var scriptValues: [String: String] = [:]
    /// The values variables took: the row's columns, then each other variable referred to.
    private(set) var values: [DataRow.Column]
    /// Whether the line being read referred to a variable.
    private var expandedLine = false
    /// The assistant's turns of the exchange being read (an answer, reasoning, tool calls and
    /// results), as written: a recorded reply's (``generated(_:)``) keep their text as the model
    /// wrote it, and the others have their references replaced once the exchange is over.
    private var pending: [PendingTurn] = []

    private struct PendingTurn {
        var entry: Int
        var role: TurnRole
        var text: String
        var lines: Range<Int>
        /// Where the text starts: its line's column, or nil for a block (its lines after `lines`' first).
        var column: Int?
    }

    init(text: String, variables: ScriptVariables) {
        self.variables = variables
        values = variables.row?.columns ?? []
        // Split on the byte: in Swift "\r\n" is one Character, which is not "\n".
        var lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line in
            String(decoding: line.last == UInt8(ascii: "\r") ? line.dropLast() : line, as: UTF8.self)
        }
        if lines.last == "" { lines.removeLast() }
        self.lines = lines
        usesVariables = !variables.commandLine.isEmpty || variables.row != nil
            || Self.header(of: lines).contains { Self.isDirective($0.text, "var") || Self.isDirective($0.text, "data") }
    }

    /// Whether `{{…}}` is read at all: in a script with `@var` or `@data` lines, or given values
    /// (`--var`, a row). Elsewhere it is text, as it was before variables, so a script that
    /// quotes a template (a chat saved with `/save`, an exported log) reads as written.
    private let usesVariables: Bool

    /// The directive lines before the first turn (where `@var` and `@data` stand), trimmed, with
    /// their numbers from 1.
    static func header(of lines: [String]) -> [(text: String, line: Int)] {
        var header: [(String, Int)] = []
        for (index, line) in lines.enumerated() {
            let text = line.trimmingBlanks()
            if text.isEmpty || text.hasPrefix("#") { continue }
            guard text.hasPrefix("@") else { break }
            header.append((text, index + 1))
        }
        return header
    }

    /// Whether the trimmed line `text` is the directive `@name`.
    static func isDirective(_ text: String, _ name: String) -> Bool {
        text.hasPrefix("@" + name) && text.dropFirst(name.count + 1).first.map { $0 == " " || $0 == "\t" } ?? true
    }

    mutating func parse() throws(ScriptParseError) -> [ScriptEntry] {
        while number < lines.count {
            let line = lines[number]
            let start = number
            number += 1
            let text = line.drop { $0 == " " || $0 == "\t" }
            let column = line.count - text.count + 1
            let count = entries.count
            let blank = text.allSatisfy({ $0 == " " || $0 == "\t" })
            if !blank && !text.hasPrefix("#") && !text.hasPrefix("@generated") && !text.hasPrefix("@verdict")
                && ![TurnRole.assistant, .reasoning, .toolCall, .tool].contains(where: { text.hasPrefix("\($0.rawValue):") })
            {
                try resolvePending(ownRounds: nil)
            }
            defer {
                if expandedLine, entries.count > count {
                    entries[entries.count - 1].written = lines[start..<number].joined(separator: "\n")
                }
                expandedLine = false
            }
            if blank {
                entries.append(ScriptEntry(.blank, line: number))
            } else if text.hasPrefix("#") {
                entries.append(ScriptEntry(.comment(String(text.dropFirst())), line: number))
            } else if text.hasPrefix("@") {
                try directive(text.dropFirst(), column: column + 1)
            } else if text.hasPrefix("expect-lua:") {
                let start = number
                let rest = text.dropFirst("expect-lua:".count)
                let written = try content(after: rest, column: column + 11)
                let code = try expanded(written, from: start, column: number > start ? nil : column + 11 + Self.blanks(before: rest), as: .lua)
                guard !code.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                    throw error("expect-lua needs a Lua expression, like expect-lua: #reply < 200", line: start, column: column + 11)
                }
                try expectation(Expectation(.init(.lua, .text(code))), line: start, column: column)
            } else if text.hasPrefix("expect:") {
                try expect(text.dropFirst("expect:".count), column: column + 7)
            } else if let role = TurnRole.allCases.first(where: { text.hasPrefix("\($0.rawValue):") }) {
                let start = number
                let rest = text.dropFirst(role.rawValue.count + 1)
                let body = try content(after: rest, column: column + role.rawValue.count + 1)
                let bodyColumn = number > start ? nil : column + role.rawValue.count + 1 + Self.blanks(before: rest)
                if role == .user || role == .system {
                    try turn(Turn(role, expanded(body, from: start, column: bodyColumn)), line: start, column: column)
                } else {
                    pending.append(PendingTurn(entry: entries.count, role: role, text: body, lines: (start - 1)..<number,
                                               column: bodyColumn))
                    try turn(Turn(role, body), line: start, column: column)
                }
            } else {
                throw error("expected a turn (system:, user:, assistant:, tool-call:, tool:, reasoning:), a directive (@…), an expectation "
                            + "(expect:, expect-lua:) or a comment (#); to write a turn over several lines, "
                            + "open a block with user: \"\"\"", column: column)
            }
        }
        try resolvePending(ownRounds: nil)
        try requireResults(line: lines.count, column: 1)
        return entries
    }

    // MARK: Variables

    /// The file of the `@data` line among the directives before the first turn, and its line.
    static func dataFile(in text: String) -> (file: String, line: Int)? {
        header(of: ScriptParser(text: text, variables: ScriptVariables()).lines).lazy
            .first { isDirective($0.text, "data") && $0.text.count > 5 }
            .map { ($0.text.dropFirst(5).trimmingBlanks(), $0.line) }
    }

    /// `names` for a message: the first 20, then how many more.
    static func listed(_ names: [String]) -> String {
        let shown = names.prefix(20).joined(separator: ", ")
        return names.count > 20 ? shown + " and \(names.count - 20) more" : shown
    }

    /// The value of the variable `name`: the row's, the script's `@var`, or the command line's.
    private mutating func value(of name: String) throws(ExpansionFailure) -> String {
        guard let value = variables.row?[name] ?? scriptValues[name] ?? variables.commandLine[name] else {
            let sources = "@var \(name) VALUE in the script, --var \(name)=VALUE, or a column \(name) in its data file (--data, @data)"
            if let row = variables.row {
                throw ExpansionFailure(name: name, message: "\(row.location) has no column \(name), and no @var or --var gives it a value; "
                                       + "its columns are \(Self.listed(row.columns.map(\.name)))")
            }
            throw ExpansionFailure(name: name, message: "{{\(name)}} has no value: give it one with \(sources)")
        }
        if !values.contains(where: { $0.name == name }) { values.append(DataRow.Column(name: name, value: value)) }
        return value
    }

    /// `text` with its references replaced; `text` starts at `column` of line `line` (1-based),
    /// or, when `column` is nil, is a block whose lines follow line `line`.
    private mutating func expanded(_ text: String, from line: Int, column: Int?,
                                   as context: ScriptVariables.Context = .text) throws(ScriptParseError) -> String {
        guard usesVariables else { return text }
        do {
            let result = try ScriptVariables.expand(text) { name throws(ExpansionFailure) in
                try context.written(value(of: name), name: name)
            }
            if result != text { expandedLine = true }
            return result
        } catch {
            let before = text.prefix(error.offset)
            var located: ScriptParseError
            if let column, !before.contains(where: \.isNewline) {
                located = self.error(error.message, line: line, column: column + error.offset)
            } else {
                let newlines = before.count(where: \.isNewline)
                let lineStart = before.lastIndex(where: \.isNewline).map { before.index(after: $0) } ?? before.startIndex
                located = self.error(error.message, line: line + newlines + (column == nil ? 1 : 0),
                                     column: before.distance(from: lineStart, to: before.endIndex) + 1)
            }
            located.variable = error.name
            throw located
        }
    }

    /// `text` at `column` of the line being read, with its references replaced.
    private mutating func expanded(_ text: String, column: Int, as context: ScriptVariables.Context = .text) throws(ScriptParseError) -> String {
        try expanded(text, from: number, column: column, as: context)
    }

    /// Ends the exchange's pending turns (``pending``): each has its references replaced and,
    /// for a call, its JSON checked, except those of a recorded reply (`ownRounds` not nil: its
    /// answer, its reasoning and its last `ownRounds` rounds), which stay as the model wrote them.
    private mutating func resolvePending(ownRounds: Int?) throws(ScriptParseError) {
        guard !pending.isEmpty else { return }
        let turns = pending
        pending = []
        // Each turn's round (from 1), the answer and its reasoning after every round.
        var round = 0
        var rounds: [Int] = []
        for (index, turn) in turns.enumerated() {
            switch turn.role {
            case .assistant where index + 1 < turns.count && turns[index + 1].role == .toolCall: round += 1
            case .toolCall where index == 0 || turns[index - 1].role == .tool: round += 1
            default: break
            }
            rounds.append(turn.role == .reasoning || (turn.role == .assistant && index + 1 == turns.count) ? .max : round)
        }
        let given = ownRounds.map { round - $0 } ?? .max
        for (turn, round) in zip(turns, rounds) {
            var text = turn.text
            if round <= given {
                text = try expanded(text, from: turn.lines.lowerBound + 1, column: turn.column,
                                    as: turn.role == .toolCall ? .jsonString : .text)
                if expandedLine {
                    entries[turn.entry] = ScriptEntry(.turn(Turn(turn.role, text)), line: turn.lines.lowerBound + 1,
                                                      written: lines[turn.lines].joined(separator: "\n"))
                    expandedLine = false
                }
            }
            if turn.role == .toolCall { try checkCall(text, line: turn.lines.lowerBound + 1, column: (turn.column ?? 12) - 11) }
        }
    }

    /// Refuses a `tool-call:` turn whose text is not a call's JSON.
    private func checkCall(_ text: String, line: Int, column: Int) throws(ScriptParseError) {
        do {
            let call = try ToolCall(json: text, id: "")
            if let problem = ToolDefinition.problem(withName: call.name) { throw ToolFailure(problem) }
        } catch {
            throw self.error("tool-call: is the call's JSON, {\"name\": …, \"arguments\": {…}}: \(error)", line: line,
                             column: column + 11)
        }
    }

    /// How many spaces and tabs `text` starts with.
    static func blanks(before text: Substring) -> Int {
        text.prefix { $0 == " " || $0 == "\t" }.count
    }

    /// Refuses to leave a round of tool calls without a result for each call, or reasoning
    /// without its answer.
    private func requireResults(line: Int, column: Int) throws(ScriptParseError) {
        if last == .reasoning {
            throw error("a reasoning: turn is the thinking before an answer: the assistant: turn it led to follows it",
                        line: line, column: column)
        }
        guard last == .toolCall || (last == .toolResult && roundResults < roundCalls) else { return }
        throw error("the tool calls above have \(roundResults) of their \(roundCalls) results: give each call its result in a "
                    + "tool: turn after the calls, in their order", line: line, column: column)
    }

    // MARK: Turns

    /// The text of a turn or Lua expectation: the rest of the line, or a `"""` block.
    private mutating func content(after rest: Substring, column: Int) throws(ScriptParseError) -> String {
        let value = rest.trimmingBlanks()
        guard value == "\"\"\"" else { return value }
        let opening = number
        var body: [String] = []
        while number < lines.count {
            let line = lines[number]
            number += 1
            if line.trimmingBlanks() == "\"\"\"" { return body.joined(separator: "\n") }
            body.append(line.hasPrefix("\\") ? String(line.dropFirst()) : line)
        }
        throw error("this block is never closed: end it with a line holding only \"\"\"", line: opening,
                    column: column + rest.count - rest.drop { $0 == " " || $0 == "\t" }.count)
    }

    private mutating func turn(_ turn: Turn, line: Int, column: Int) throws(ScriptParseError) {
        if turn.role != .tool && !(turn.role == .toolCall && last == .toolCall) && !(turn.role == .assistant && last == .reasoning) {
            try requireResults(line: line, column: column)
        }
        switch turn.role {
        case .reasoning:
            guard last == .user || last == .toolResult else {
                throw error("a reasoning: turn is the thinking before an answer: it follows the user turn it answers, or the "
                            + "results of its tool calls, and the assistant: turn follows it", line: line, column: column)
            }
            last = .reasoning
        case .assistant:
            guard last == .user || last == .toolResult || last == .reasoning else {
                throw error("an assistant turn must directly follow the user turn it answers, or the results of its tool calls "
                            + "(only comments and blank lines between); to have the model answer, leave the assistant turn out",
                            line: line, column: column)
            }
            last = .fixedAssistant
        case .toolCall:
            guard [.user, .fixedAssistant, .toolCall, .toolResult].contains(last) else {
                throw error("a tool call is the assistant's: it follows the user turn, the assistant's text before it, or the "
                            + "calls and results of the round before", line: line, column: column)
            }
            if last == .toolCall {
                roundCalls += 1
            } else {
                (roundCalls, roundResults) = (1, 0)
                exchangeRounds += 1
            }
            last = .toolCall
        case .tool:
            guard last == .toolCall || last == .toolResult, roundResults < roundCalls else {
                throw error("a tool: turn is the result of a call: it follows the round's tool-call: turns, one result per call",
                            line: line, column: column)
            }
            roundResults += 1
            last = .toolResult
        case .user:
            last = .user
            exchangeRounds = 0
        case .system: last = .system
        }
        seenTurn = true
        entries.append(ScriptEntry(.turn(turn), line: line))
    }

    // MARK: Expectations

    private mutating func expect(_ rest: Substring, column: Int) throws(ScriptParseError) {
        var cursor = Cursor(rest, column: column)
        cursor.skipSpaces()
        var negated = false
        if cursor.word() == "not" {
            negated = true
            cursor.consumeWord()
            cursor.skipSpaces()
        }
        let kindColumn = cursor.column
        let name = cursor.consumeWord()
        cursor.skipSpaces()
        guard !name.isEmpty else {
            throw error("expect: needs a check: \(CheckKind.listed) (and `not` before it)", column: kindColumn)
        }
        guard let kind = CheckKind.named(name) else {
            throw error("unknown check '\(name)'; use \(CheckKind.listed) (or expect-lua: for a Lua expression)", column: kindColumn)
        }
        let check = Expectation.Check(kind, try checkArgument(of: kind, &cursor))
        cursor.skipSpaces()
        guard cursor.isAtEnd else { throw error("unexpected text after the check", column: cursor.column) }
        try expectation(Expectation(check, negated: negated), line: number, column: column - 7)
    }

    /// The argument of a check of `kind`, read as its form is written and checked as the kind asks.
    private mutating func checkArgument(of kind: CheckKind, _ cursor: inout Cursor) throws(ScriptParseError) -> CheckArgument {
        let written = cursor
        let argument: CheckArgument
        switch kind.form {
        case .none: return .none
        case .text(let what), .word(let what): argument = .text(try self.argument(&cursor, what: what))
        case .schemaFile: argument = .text(try self.argument(&cursor, what: "the JSON schema's file"))
        case .schema: argument = .text(try self.argument(&cursor, what: "a JSON schema's file, or a schema written inline ({…})"))
        case .texts(let what): argument = .texts(try arguments(&cursor, what: what))
        case .count(let unit): argument = .count(try bound(&cursor, unit: unit))
        case .measure: argument = .measure(try measureBound(&cursor))
        case .similarity: argument = .measure(try similarityBound(&cursor))
        case .textAndSimilarity:
            guard cursor.peek == "\"" else {
                throw error("\(kind.name) needs the text to compare with, quoted, then a bound: \(kind.name) \"Paris is in France.\" >= 0.8",
                            column: cursor.column)
            }
            let text = try expandedQuoted(&cursor)
            cursor.skipSpaces()
            argument = .textAndMeasure(text, try similarityBound(&cursor))
        case .luaExpression: throw error("a Lua expression is checked with expect-lua:", column: cursor.column)
        }
        if let text = argument.text, let problem = kind.problem(text) {
            let offset = problem.offset.map { written.offset(ofScalar: $0, quoted: written.peek == "\"") } ?? 0
            throw error(problem.message, column: written.column + offset)
        }
        return argument
    }

    private mutating func expectation(_ expectation: Expectation, line: Int, column: Int) throws(ScriptParseError) {
        try requireResults(line: line, column: column)
        switch last {
        case .user, .toolResult: last = .generatingUser
        case .generatingUser, .recordedAssistant: break
        case .fixedAssistant:
            throw error("an expectation checks a generated reply, but this one follows an assistant turn written "
                        + "in the script (leave the assistant turn out to have the model answer)", line: line, column: column)
        default:
            throw error("an expectation must directly follow the user turn whose reply it checks (only comments, "
                        + "blank lines and other expectations between)", line: line, column: column)
        }
        entries.append(ScriptEntry(.expectation(expectation), line: line))
    }

    /// A quoted string, or the rest of the line, its references replaced.
    private mutating func argument(_ cursor: inout Cursor, what: String) throws(ScriptParseError) -> String {
        if cursor.peek == "\"" { return try expandedQuoted(&cursor) }
        let column = cursor.column
        let value = cursor.rest.trimmingBlanks()
        guard !value.isEmpty else { throw error("expected \(what)", column: cursor.column) }
        cursor.consumeRest()
        return try expanded(value, column: column)
    }

    /// Quoted strings or bare words, one or more, to the end of the line, their references replaced.
    private mutating func arguments(_ cursor: inout Cursor, what: String) throws(ScriptParseError) -> [String] {
        var texts: [String] = []
        cursor.skipSpaces()
        while !cursor.isAtEnd {
            let column = cursor.column
            texts.append(cursor.peek == "\"" ? try expandedQuoted(&cursor) : try expanded(cursor.consumeWord(), column: column))
            cursor.skipSpaces()
        }
        guard !texts.isEmpty else { throw error("expected \(what)", column: cursor.column) }
        return texts
    }

    /// A quoted string, its references replaced.
    private mutating func expandedQuoted(_ cursor: inout Cursor) throws(ScriptParseError) -> String {
        let column = cursor.column + 1
        return try expanded(quoted(&cursor), column: column)
    }

    private func quoted(_ cursor: inout Cursor) throws(ScriptParseError) -> String {
        switch QuotedString.read(cursor.rest) {
        case .success(let (value, rest)):
            cursor.advance(to: rest)
            return value
        case .failure(let failure):
            throw error(failure.message, column: cursor.column + failure.offset)
        }
    }

    /// `<= N`, `< N`, `>= N`, `> N`, `== N`, `N..M`, followed by `unit` when there is one.
    private mutating func bound(_ cursor: inout Cursor, unit: String? = nil) throws(ScriptParseError) -> CountBound {
        let column = cursor.column
        var text = try expanded(cursor.rest.trimmingBlanks(), column: column)
        cursor.consumeRest()
        let usage = "expected a bound such as <= 200, >= 3, == 8 or 10..200" + (unit.map { ", then \($0)" } ?? "")
        if let unit {
            guard text.hasSuffix(" " + unit) else { throw error(usage, column: column) }
            text = String(text.dropLast(unit.count)).trimmingBlanks()
        }
        for op in ["<=", ">=", "==", "<", ">"] where text.hasPrefix(op) {
            guard let number = Int(text.dropFirst(op.count).trimmingBlanks()), number >= 0 else {
                throw error("\(usage), with a whole number ≥ 0", column: column)
            }
            switch op {
            case "<=": return CountBound(upper: number)
            case "<":
                guard number > 0 else { throw error("nothing is shorter than 0", column: column) }
                return CountBound(upper: number - 1)
            case ">=": return CountBound(lower: number)
            case ">":
                guard number < Int.max else { throw error("nothing is longer than \(number)", column: column) }
                return CountBound(lower: number + 1)
            default: return CountBound(lower: number, upper: number)
            }
        }
        let parts = text.components(separatedBy: "..")
        guard parts.count == 2, let lower = Int(parts[0]), let upper = Int(parts[1]), lower >= 0 else {
            throw error(usage, column: column)
        }
        guard lower <= upper else { throw error("the range \(text) is empty", column: column) }
        return CountBound(lower: lower, upper: upper)
    }

    /// A bound on a cosine similarity: a measure bound within [-1, 1].
    private mutating func similarityBound(_ cursor: inout Cursor) throws(ScriptParseError) -> MeasureBound {
        let column = cursor.column
        let bound = try measureBound(&cursor)
        guard [bound.lower, bound.upper].allSatisfy({ $0.map { (-1...1).contains($0) } ?? true }) else {
            throw error("a similarity is a cosine, from -1 to 1: \(bound) is out of that range", column: column)
        }
        return bound
    }

    /// A bound on a measured number: `<= 20`, `< 20`, `>= -2.5`, `> -2.5` or `1.5..20`.
    private mutating func measureBound(_ cursor: inout Cursor) throws(ScriptParseError) -> MeasureBound {
        let column = cursor.column
        let text = try expanded(cursor.rest.trimmingBlanks(), column: column)
        cursor.consumeRest()
        let usage = "expected a bound such as <= 20, < 20, >= -2.5, > -2.5 or 1.5..20"
        guard !text.isEmpty else { throw error(usage, column: column) }
        func number(_ text: some StringProtocol) -> Double? { Double(text.trimmingBlanks()).flatMap { $0.isFinite ? $0 : nil } }
        for op in ["<=", ">=", "<", ">"] where text.hasPrefix(op) {
            guard let value = number(text.dropFirst(op.count)) else { throw error(usage, column: column) }
            switch op {
            case "<=": return MeasureBound(upper: value)
            case "<": return MeasureBound(upper: value, excludingUpper: true)
            case ">=": return MeasureBound(lower: value)
            default: return MeasureBound(lower: value, excludingLower: true)
            }
        }
        // The range's dots are found after a first number, which may hold a minus sign and a point.
        guard let dots = text.range(of: "..", options: [], range: text.index(after: text.startIndex)..<text.endIndex),
              let lower = number(text[..<dots.lowerBound]), let upper = number(text[dots.upperBound...])
        else { throw error(usage, column: column) }
        guard lower <= upper else { throw error("the range \(text) is empty", column: column) }
        return MeasureBound(lower: lower, upper: upper)
    }

    // MARK: Directives

    private mutating func directive(_ rest: Substring, column: Int) throws(ScriptParseError) {
        try requireResults(line: number, column: column - 1)
        var cursor = Cursor(rest, column: column)
        let key = cursor.consumeWord()
        cursor.skipSpaces()
        let valueColumn = cursor.column
        let written = cursor.rest.trimmingBlanks()
        let value = ["var", "data", "generated", "verdict"].contains(key) ? written
            : try expanded(written, column: valueColumn, as: key == "plugin" ? .pluginWord : .text)
        func text() throws(ScriptParseError) -> String {
            guard !value.isEmpty else { throw error("@\(key) needs a value", column: valueColumn) }
            return value
        }
        let directive: Directive
        switch key {
        case "name": directive = .name(try text())
        case "description": directive = .description(try text())
        case "model": directive = .model(try text())
        case "judge": directive = .judge(try text())
        case "template": directive = .template(try text())
        case "tool-format":
            guard let format = ToolCallFormat(rawValue: value) else {
                throw error("@tool-format must be \(ToolCallFormat.requirement), not '\(value)'", column: valueColumn)
            }
            directive = .toolFormat(format)
        case "plugin": directive = .plugin(try text())
        case "mcp": directive = .mcp(try text())
        case "var": directive = try variable(&cursor)
        case "data":
            guard !entries.contains(where: { if case .directive(.data) = $0.item { true } else { false } }) else {
                throw error("@data is given twice: a script is fed by one data file", column: column - 1)
            }
            directive = .data(file: try text())
        case "unload": directive = .unload(try text())
        case "ctx-size":
            guard let size = Int(value), ModelDescription.contextSizes.contains(size) else {
                throw error("@ctx-size must be a whole number from \(ModelDescription.contextSizes.lowerBound) to "
                    + "\(ModelDescription.contextSizes.upperBound), not '\(value)'", column: valueColumn)
            }
            directive = .contextSize(size)
        case "format":
            switch value {
            case "json": directive = .format(.json)
            case "text": directive = .format(.text)
            default: throw error("@format is json or text, not '\(value)' (for a schema or a grammar, use @json-schema FILE "
                                 + "or @grammar FILE)", column: valueColumn)
            }
        case "json-schema": directive = .format(.jsonSchema(file: try text()))
        case "grammar": directive = .format(.grammar(file: try text()))
        case "min-pass":
            guard let rate = PassRate(parsing: value) else {
                throw error("@min-pass is a share of runs from 0 to 1 (0.8) or a percentage (80%), not '\(value)'", column: valueColumn)
            }
            directive = .minimumPassRate(rate)
        case "tolerance":
            guard let tolerance = Double(value), Tolerance.range.contains(tolerance) else {
                throw error("@tolerance is \(Tolerance.requirement), not '\(value)'", column: valueColumn)
            }
            directive = .tolerance(tolerance)
        case "generated":
            try generated(&cursor)
            return
        case "verdict":
            try verdict(&cursor)
            return
        default:
            guard GenerationParameters.declaration(named: key) != nil else {
                throw error("unknown directive @\(key); directives are "
                            + Self.directiveNames.map { "@" + $0 }.joined(separator: ", "), column: column - 1)
            }
            let setting: ParameterSetting
            do {
                setting = try ParameterSetting(name: key, text: value)
            } catch {
                throw self.error("@\(error)", column: valueColumn)
            }
            directive = .parameter(setting)
        }
        if directive.belongsBeforeFirstTurn && seenTurn {
            throw error("@\(key) must come before the first turn (it sets up the model and its context)", column: column - 1)
        }
        if last != .start { last = .directive }
        entries.append(ScriptEntry(.directive(directive), line: number))
    }

    static let directiveNames = ["name", "description", "model", "ctx-size", "template"] + ParameterSetting.names
        + FormatSetting.names + ["plugin", "unload", "min-pass", "tolerance", "generated", "verdict", "judge", "var", "data", "mcp"]

    /// `@var NAME VALUE`: the value is a quoted string or the rest of the line, as written.
    private mutating func variable(_ cursor: inout Cursor) throws(ScriptParseError) -> Directive {
        let nameColumn = cursor.column
        let name = cursor.consumeWord()
        guard ScriptVariables.isName(name) else {
            throw error(name.isEmpty ? "@var needs a name and a value: @var capital Paris"
                        : "a variable's name is letters, digits and _, not starting with a digit: '\(name)' is not one", column: nameColumn)
        }
        guard scriptValues[name] == nil else { throw error("@var \(name) is given twice: give each variable once", column: nameColumn) }
        cursor.skipSpaces()
        let valueColumn = cursor.column
        let value: String
        if cursor.peek == "\"" {
            value = try quoted(&cursor)
            cursor.skipSpaces()
            guard cursor.isAtEnd else { throw error("unexpected text after the quoted value", column: cursor.column) }
        } else {
            value = cursor.rest.trimmingBlanks()
            guard !value.isEmpty else { throw error("@var \(name) needs a value (\"\" for the empty text)", column: valueColumn) }
        }
        scriptValues[name] = value
        return .variable(name: name, value: variables.row?[name] ?? value)
    }

    /// `@verdict pass|fail "RUBRIC" "REASON"`, right after `@generated` (or another verdict): a
    /// judge's verdict on the recorded reply.
    private mutating func verdict(_ cursor: inout Cursor) throws(ScriptParseError) {
        let column = cursor.column
        guard last == .recordedAssistant, case .generated(var record)? = entries.last?.item else {
            throw error("@verdict records a judge's verdict on a recorded reply and must come right after its @generated line",
                        column: column)
        }
        let outcome = cursor.consumeWord()
        guard outcome == "pass" || outcome == "fail" else { throw error("@verdict is pass or fail, then the rubric and the reason, quoted", column: column) }
        cursor.skipSpaces()
        guard cursor.peek == "\"" else { throw error("expected the rubric, quoted", column: cursor.column) }
        let rubric = try quoted(&cursor)
        cursor.skipSpaces()
        guard cursor.peek == "\"" else { throw error("expected the judge's reason, quoted", column: cursor.column) }
        let reason = try quoted(&cursor)
        cursor.skipSpaces()
        guard cursor.isAtEnd else { throw error("unexpected text after the reason", column: cursor.column) }
        record.verdicts.append(RecordedVerdict(rubric: rubric, passed: outcome == "pass", reason: reason))
        entries[entries.count - 1] = ScriptEntry(.generated(record), line: entries[entries.count - 1].line)
    }

    /// `@generated stop="…" tokens=N`, right after an assistant turn.
    private mutating func generated(_ cursor: inout Cursor) throws(ScriptParseError) {
        let column = cursor.column
        guard last == .fixedAssistant, case .turn(let turn)? = entries.last?.item, turn.role == .assistant else {
            throw error("@generated marks a recorded reply and must come right after its assistant turn", column: column)
        }
        var stop: String?
        var tokens: Int?
        var rounds = 0
        while !cursor.isAtEnd {
            let fieldColumn = cursor.column
            let field = cursor.consume { $0 != "=" && $0 != " " && $0 != "\t" }
            guard cursor.peek == "=" else { throw error("expected stop=\"…\", tokens=N or rounds=N", column: fieldColumn) }
            cursor.advance(by: 1)
            let value = cursor.peek == "\"" ? try quoted(&cursor) : cursor.consumeWord()
            switch field {
            case "stop": stop = value
            case "tokens":
                guard let count = Int(value), count >= 0 else { throw error("tokens must be a whole number", column: fieldColumn) }
                tokens = count
            case "rounds":
                guard let count = Int(value), (0...exchangeRounds).contains(count) else {
                    throw error("rounds is how many of the \(exchangeRounds) rounds of tool calls above the reply made, not \(value)",
                                column: fieldColumn)
                }
                rounds = count
            default: throw error("unknown field '\(field)' (expected stop, tokens and rounds)", column: fieldColumn)
            }
            cursor.skipSpaces()
        }
        guard let stop, let tokens else { throw error("@generated needs stop=\"…\" and tokens=N", column: column) }
        try resolvePending(ownRounds: rounds)
        last = .recordedAssistant
        entries.append(ScriptEntry(.generated(ReplyRecord(stopReason: stop, tokens: tokens, rounds: rounds)), line: number))
    }

    // MARK: Errors

    private func error(_ message: String, line: Int? = nil, column: Int) -> ScriptParseError {
        let line = line ?? number
        return ScriptParseError(line: line, column: column, message: message, lineText: lines[line - 1])
    }
}
