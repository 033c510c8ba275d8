import Foundation
import TideFiles
import TideFormat

/// The rows that feed a script (`tide run --data FILE`, `@data FILE`): a CSV file with a header
/// line, or JSON Lines (one object a line), read whole and checked before anything runs.
///
/// ```swift
/// let table = try DataTable(contentsOf: "capitals.csv")
/// for row in table.rows { print(row.name, row["capital"] ?? "") }
/// ```
public struct DataTable: Sendable, Hashable {
    /// The file, as named.
    public var file: String
    /// Its rows, in order.
    public var rows: [DataRow]

    /// The most a data file may hold.
    public static let fileSizeLimit = 64 << 20
    /// The most rows a data file may have.
    public static let rowLimit = 100_000

    /// Reads `file`: JSON Lines when its name ends in `.jsonl` or `.ndjson`, CSV otherwise.
    public init(contentsOf file: String) throws {
        let bytes = try InputFile.contents(of: file, what: "data file", limit: Self.fileSizeLimit)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw DataFileError(file: file, line: 1, column: 1, message: "the file is not UTF-8 text")
        }
        let lower = file.lowercased()
        try self.init(parsing: text, file: file, jsonLines: lower.hasSuffix(".jsonl") || lower.hasSuffix(".ndjson"))
    }

    /// Reads `text`, named `file` in errors and rows.
    public init(parsing text: String, file: String, jsonLines: Bool) throws(DataFileError) {
        self.file = file
        let records = jsonLines ? try Self.jsonLines(text, file: file) : try Self.csv(text, file: file)
        guard !records.isEmpty else {
            throw DataFileError(file: file, line: 1, column: 1,
                                message: jsonLines ? "no rows: write one JSON object a line" : "no rows under the header line")
        }
        guard records.count <= Self.rowLimit else {
            throw DataFileError(file: file, line: records[Self.rowLimit].line, column: 1,
                                message: "more than \(Self.rowLimit) rows; split the file")
        }
        var names: [String: Int] = [:]
        rows = []
        for (index, record) in records.enumerated() {
            var name = String(index + 1)
            if let id = record.columns.first(where: { $0.name == "id" }) {
                guard !id.value.isEmpty, !id.value.contains(where: \.isNewline) else {
                    throw DataFileError(file: file, line: record.line, column: 1,
                                        message: "the id column names the row in reports: give it a value on one line")
                }
                if let earlier = names[id.value] {
                    throw DataFileError(file: file, line: record.line, column: 1,
                                        message: "id \(id.value) is also the id of the row at line \(earlier): ids name rows, so each is used once")
                }
                names[id.value] = record.line
                name = id.value
            }
            rows.append(DataRow(name: name, file: file, line: record.line, columns: record.columns))
        }
    }

    private struct Record {
        var line: Int
        var columns: [DataRow.Column]
    }

    /// RFC 4180: fields separated by commas, quoted with `"` (a quote inside doubled; a quoted
    /// field may span lines), a header line naming the columns; blank lines are skipped.
    private static func csv(_ text: String, file: String) throws(DataFileError) -> [Record] {
        var records: [(line: Int, fields: [(value: String, column: Int)])] = []
        var fields: [(value: String, column: Int)] = []
        var field = ""
        var (line, column) = (1, 1)
        var recordLine = 1
        var fieldColumn = 1
        var quoted = false
        var quoteStart = (line: 0, column: 0)
        var afterQuote = false
        var characters = text.makeIterator()
        var pending: Character?
        func next() -> Character? {
            if let character = pending {
                pending = nil
                return character
            }
            return characters.next()
        }
        func endRecord() {
            fields.append((field, fieldColumn))
            if !(fields.count == 1 && fields[0].value.isEmpty && !afterQuote) { records.append((recordLine, fields)) }
            fields = []
            field = ""
        }
        while let character = next() {
            if quoted {
                if character == "\"" {
                    if let following = characters.next() {
                        if following == "\"" {
                            field.append("\"")
                            column += 2
                            continue
                        }
                        pending = following
                    }
                    quoted = false
                    afterQuote = true
                    column += 1
                } else {
                    field.append(character)
                    if character.isNewline { (line, column) = (line + 1, 1) } else { column += 1 }
                }
                continue
            }
            switch character {
            case ",":
                fields.append((field, fieldColumn))
                field = ""
                afterQuote = false
                column += 1
                fieldColumn = column
            case "\n", "\r\n", "\r":
                endRecord()
                afterQuote = false
                (line, column) = (line + 1, 1)
                (recordLine, fieldColumn) = (line, 1)
            case "\"" where field.isEmpty && !afterQuote:
                quoted = true
                quoteStart = (line, column)
                column += 1
            default:
                if afterQuote {
                    throw DataFileError(file: file, line: line, column: column,
                                        message: "text after a quoted field's closing quote: put a comma after the quote, or double a quote inside the field (\"\")")
                }
                if character == "\"" {
                    throw DataFileError(file: file, line: line, column: column,
                                        message: "a quote inside an unquoted field: quote the whole field and double the quote (\"a \"\"b\"\"\")")
                }
                field.append(character)
                column += 1
            }
        }
        if quoted {
            throw DataFileError(file: file, line: quoteStart.line, column: quoteStart.column,
                                message: "this quoted field is never closed: end it with a quote")
        }
        if !field.isEmpty || !fields.isEmpty || afterQuote { endRecord() }
        guard let header = records.first else {
            throw DataFileError(file: file, line: 1, column: 1, message: "the file is empty: a CSV data file starts with a header line naming its columns")
        }
        var seen: Set<String> = []
        for (name, column) in header.fields {
            let name = name.trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else {
                throw DataFileError(file: file, line: header.line, column: column, message: "every column of the header line needs a name")
            }
            guard seen.insert(name).inserted else {
                throw DataFileError(file: file, line: header.line, column: column, message: "column \(name) is named twice in the header line")
            }
            try checkName(name, file: file, line: header.line, column: column)
        }
        let names = header.fields.map { $0.value.trimmingCharacters(in: .whitespaces) }
        return try records.dropFirst().map { record throws(DataFileError) in
            guard record.fields.count == names.count else {
                let column = record.fields.count > names.count ? record.fields[names.count].column : record.fields.last?.column ?? 1
                throw DataFileError(file: file, line: record.line, column: column,
                                    message: "\(record.fields.count) fields where the header names \(names.count) columns (\(ScriptParser.listed(names)))")
            }
            return Record(line: record.line, columns: zip(names, record.fields).map { DataRow.Column(name: $0, value: $1.value) })
        }
    }

    /// Refuses a column name that cannot name a variable: a row's columns are its variables, and
    /// a transcript writes each as a `@var NAME VALUE` line.
    private static func checkName(_ name: String, file: String, line: Int, column: Int) throws(DataFileError) {
        guard ScriptVariables.isName(name) else {
            throw DataFileError(file: file, line: line, column: column,
                                message: "column \(name.debugDescription) cannot name a variable: use letters, digits and _, not starting with a digit")
        }
    }

    /// One JSON object a line; strings are taken as they are, other values as their JSON text
    /// (`null` as the empty string). Blank lines are skipped.
    private static func jsonLines(_ text: String, file: String) throws(DataFileError) -> [Record] {
        var records: [Record] = []
        // Split on the byte: in Swift "\r\n" is one Character, which is not "\n".
        for (index, bytes) in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let line = String(decoding: bytes.last == UInt8(ascii: "\r") ? bytes.dropLast() : bytes, as: UTF8.self)
            guard !line.allSatisfy(\.isWhitespace) else { continue }
            let value: JSONValue
            do {
                value = try JSONValue(parsing: line)
            } catch {
                throw DataFileError(file: file, line: index + 1, column: error.column, message: error.message)
            }
            guard case .object(let object) = value else {
                throw DataFileError(file: file, line: index + 1, column: 1, message: "each line is one JSON object, {\"name\": value, …}")
            }
            var seen: Set<String> = []
            for member in object.members {
                guard seen.insert(member.key).inserted else {
                    throw DataFileError(file: file, line: index + 1, column: 1, message: "column \(member.key) is named twice in this object")
                }
                try checkName(member.key, file: file, line: index + 1, column: 1)
            }
            records.append(Record(line: index + 1, columns: object.members.map { member in
                switch member.value {
                case .string(let text): DataRow.Column(name: member.key, value: text)
                case .null: DataRow.Column(name: member.key, value: "")
                default: DataRow.Column(name: member.key, value: member.value.text)
                }
            }))
        }
        return records
    }
}

/// One row of a data file: the values a run of a script fed by data takes.
public struct DataRow: Sendable, Hashable {
    /// What reports call the row: its `id` column, else its number from 1.
    public var name: String
    /// The data file.
    public var file: String
    /// The line it starts on.
    public var line: Int
    /// Its values, in the file's order.
    public var columns: [Column]

    /// A named value.
    public struct Column: Sendable, Hashable {
        public var name: String
        public var value: String

        /// A column.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// A row.
    public init(name: String, file: String, line: Int, columns: [Column]) {
        self.name = name
        self.file = file
        self.line = line
        self.columns = columns
    }

    /// The value of column `name`, if the row has it.
    public subscript(name: String) -> String? {
        columns.first { $0.name == name }?.value
    }

    /// `rows.csv:4 (row fr)`: where it is, for messages.
    public var location: String { "\(file):\(line) (row \(name))" }
}

/// A data file that cannot be read, with where: `file:line:column: message`.
public struct DataFileError: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int
    public var message: String

    /// An error at `file:line:column`.
    public init(file: String, line: Int, column: Int, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String { "\(file):\(line):\(column): \(message)" }
}
