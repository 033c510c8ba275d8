import Foundation

/// A file a script names by a path from its own folder (or, for a plugin, by a name looked up
/// there first). ``ConversationScript/mappingNamedFiles(_:)`` is the one place that knows which
/// directives and checks name one.
public enum NamedFile: Sendable, Hashable {
    /// A schema, grammar or data file (`@json-schema`, `@grammar`, `@data`, `expect: json-schema`, and
    /// `expect: tool-args` unless its schema is written inline): a path, relative to the
    /// script's folder unless it is absolute.
    case file(String)
    /// A `@plugin` line's spec, `NAME|PATH key=value …`: a path in it is relative to the script's
    /// folder, and a name is looked up in that folder and in a `Plugins` folder beside it first.
    case plugin(String)
}

extension ConversationScript {
    /// The script with every file it names (``NamedFile``) replaced by what `transform` answers
    /// for it. The switch below names every directive, so a new one cannot be added without
    /// saying whether it names a file; a check names one where its form says so. A `@model`
    /// path is relative to the folder Tide runs in, as `--model`'s is, so no move of the script
    /// changes it.
    public func mappingNamedFiles(_ transform: (NamedFile) -> String) -> ConversationScript {
        var script = self
        for index in script.entries.indices {
            switch script.entries[index].item {
            case .directive(let directive):
                script.entries[index].item = .directive(Self.mapping(directive, transform))
            case .expectation(var expectation):
                expectation.check = Self.mapping(expectation.check, transform)
                script.entries[index].item = .expectation(expectation)
            case .blank, .comment, .turn, .generated:
                continue
            }
            // A line written with variables names its file as written; once moved, it is written
            // with the values it took.
            if script.entries[index].item != entries[index].item { script.entries[index].written = nil }
        }
        return script
    }

    private static func mapping(_ directive: Directive, _ transform: (NamedFile) -> String) -> Directive {
        switch directive {
        case .format(.jsonSchema(let file)): .format(.jsonSchema(file: transform(.file(file))))
        case .format(.grammar(let file)): .format(.grammar(file: transform(.file(file))))
        case .plugin(let spec): .plugin(transform(.plugin(spec)))
        case .data(let file): .data(file: transform(.file(file)))
        case .format(.text), .format(.json), .name, .description, .model, .judge, .contextSize, .template, .toolFormat, .parameter, .unload,
             .minimumPassRate, .tolerance, .variable, .mcp:
            directive
        }
    }

    private static func mapping(_ check: Expectation.Check, _ transform: (NamedFile) -> String) -> Expectation.Check {
        guard let file = check.namedFile else { return check }
        return Expectation.Check(check.kind, .text(transform(.file(file))))
    }
}

extension Expectation.Check {
    /// The file the check names, as written: where its form says it names one
    /// (``ArgumentForm/schemaFile``, and ``ArgumentForm/schema`` unless written inline).
    public var namedFile: String? {
        guard case .text(let text) = argument else { return nil }
        return switch kind.form {
        case .schemaFile: text
        case .schema: ArgumentForm.isInline(schema: text) ? nil : text
        case .none, .text, .word, .texts, .count, .measure, .similarity, .textAndSimilarity, .luaExpression: nil
        }
    }
}
