import Foundation
import TideCore
import TideFiles

extension ReplyFormat {
    /// Any JSON object: `--format json`, OpenAI's `json_object`.
    public static let json = ReplyFormat(kind: .json, definition: "", grammar: Grammar.anyJSONObject.text)

    /// The largest schema or grammar file read (1 MiB).
    public static let fileSizeLimit = 1 << 20

    /// A format from the text of a JSON schema; throws when it is not JSON, or not a schema Tide
    /// can enforce (naming the keyword and its JSON pointer).
    public static func jsonSchema(_ text: String, file: String? = nil) throws(ReplyFormatError) -> ReplyFormat {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: text)
        } catch {
            throw ReplyFormatError(.jsonSchema, file: file, problem: "not JSON: \(error)")
        }
        return try jsonSchema(value, file: file)
    }

    /// A format from a parsed JSON schema (as a request carries it).
    public static func jsonSchema(_ value: JSONValue, file: String? = nil) throws(ReplyFormatError) -> ReplyFormat {
        do {
            let schema = try JSONSchema(value)
            return ReplyFormat(kind: .jsonSchema, definition: value.text, grammar: schema.grammar.text, file: file)
        } catch {
            throw ReplyFormatError(.jsonSchema, file: file, problem: error.description)
        }
    }

    /// A format from the text of a GBNF grammar whose start rule is `root`; throws with the line
    /// and column of the first mistake.
    public static func grammar(_ text: String, file: String? = nil) throws(ReplyFormatError) -> ReplyFormat {
        do {
            let grammar = try Grammar(gbnf: text)
            return ReplyFormat(kind: .grammar, definition: text, grammar: grammar.text, file: file)
        } catch {
            throw ReplyFormatError(.grammar, file: file, problem: error.description)
        }
    }

    /// A grammar that allows exactly `text` (every character escaped as GBNF needs): a reply
    /// made certain, whatever the model's scores.
    public static func exactly(_ text: String) -> ReplyFormat {
        let definition = "root ::= " + GBNF.literal(text)
        return ReplyFormat(kind: .grammar, definition: definition, grammar: definition)
    }

    /// A schema or grammar read from `path` (relative paths from `folder`, or the working
    /// directory); ``file`` keeps `path` as given. (``Kind/json`` needs no file.)
    public static func reading(_ kind: Kind, file path: String, from folder: URL? = nil) throws(ReplyFormatError) -> ReplyFormat {
        guard kind != .json else { return .json }
        let url = folder.map { URL(fileURLWithPath: path, relativeTo: $0) } ?? URL(fileURLWithPath: path)
        let what = kind == .grammar ? "grammar" : "JSON schema"
        let text: String
        do {
            let bytes = try InputFile.contents(of: url.path, what: what, limit: fileSizeLimit)
            guard let decoded = String(validating: bytes, as: UTF8.self) else {
                throw ReplyFormatError(kind, file: path, problem: "the file is not UTF-8 text")
            }
            text = decoded
        } catch let error as ReplyFormatError {
            throw error
        } catch let error as InputFileError {
            throw ReplyFormatError(kind, file: path, problem: "cannot read the \(what): \(error.reason)")
        } catch {
            throw ReplyFormatError(kind, file: path, problem: "cannot read the \(what): \(error)")
        }
        return kind == .grammar ? try grammar(text, file: path) : try jsonSchema(text, file: path)
    }
}

/// A schema or grammar that cannot constrain a reply: where it came from and what is wrong.
public struct ReplyFormatError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was given.
    public let kind: ReplyFormat.Kind
    /// The file it came from, if any.
    public let file: String?
    /// What is wrong, with its position.
    public let problem: String

    /// An error.
    public init(_ kind: ReplyFormat.Kind, file: String?, problem: String) {
        self.kind = kind
        self.file = file
        self.problem = problem
    }

    public var description: String {
        let what = kind == .grammar ? "grammar" : "JSON schema"
        return file.map { "\($0): \(problem)" } ?? "the \(what): \(problem)"
    }
}

extension ReplyFormat {
    /// What keeps `text`, a reply under this format that ended for `stopReason`, from being a
    /// complete reply in the format, or `nil` when it is one. A reply cut short (by max-tokens, a
    /// stop string, a plugin) is incomplete unless what it holds is already a complete document; a
    /// JSON reply is also parsed and validated, which catches a remote server that ignored the format.
    public func problem(with text: String, stopReason: StopReason) -> String? {
        let ended = stopReason == .endOfGeneration
        let incomplete = "incomplete: the reply ended (\(stopReason)) before its \(kind == .grammar ? "grammar" : "JSON") was complete"
        guard kind != .grammar else { return ended ? nil : incomplete }
        let value: JSONValue
        do {
            value = try JSONValue(parsing: text)
        } catch {
            return ended ? "not JSON: \(error)" : incomplete
        }
        if kind == .json, case .object = value { return nil }
        if kind == .json { return ended ? "not a JSON object" : incomplete }
        guard let schema = try? JSONSchema(JSONValue(parsing: definition)) else { return nil }
        let violations = schema.violations(of: value)
        guard !violations.isEmpty else { return nil }
        return ended ? "not valid against the schema: " + violations.prefix(3).map(\.description).joined(separator: "; ") : incomplete
    }
}
