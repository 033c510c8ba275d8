import ArgumentParser
import TideCore
import TideFormat

/// `--format`, `--json-schema` and `--grammar`: the shape replies must take, shared by
/// `tide generate`, `tide chat` and `tide run`.
struct FormatOptions: ParsableArguments {
    @Option(help: "The replies' format: json (one JSON object) or text (default: text).")
    var format: FormatName?

    @Option(name: .customLong("json-schema"), help: ArgumentHelp("A JSON schema the replies must follow.", valueName: "file"))
    var jsonSchema: String?

    @Option(help: ArgumentHelp("A GBNF grammar the replies must follow (start rule: root).", valueName: "file"))
    var grammar: String?

    /// The format named, its file read and checked; `nil` for free text.
    func replyFormat() throws -> ReplyFormat? {
        let given = [format.map { "--format \($0.rawValue)" }, jsonSchema.map { _ in "--json-schema" },
                     grammar.map { _ in "--grammar" }].compactMap { $0 }
        guard given.count <= 1 else {
            throw ValidationError("\(given.joined(separator: " and ")) both set the replies' format; give one")
        }
        do {
            if let jsonSchema { return try .reading(.jsonSchema, file: jsonSchema) }
            if let grammar { return try .reading(.grammar, file: grammar) }
        } catch {
            throw ValidationError("\(error)")
        }
        return format == .json ? .json : nil
    }

    /// Whether a format is named at all.
    var isGiven: Bool { format != nil || jsonSchema != nil || grammar != nil }

    /// `parameters` with the format named.
    func over(_ parameters: GenerationParameters) throws -> GenerationParameters {
        var parameters = parameters
        parameters.format = try replyFormat()
        return parameters
    }

    func validate() throws { _ = try replyFormat() }
}

/// The values of `--format`.
enum FormatName: String, ExpressibleByArgument, CaseIterable {
    case json, text
}
