/// A plugin as a user names it: `NAME key=value …`, the same spelling on the command line
/// (`--plugin 'stop-after-sentences sentences=2'`), in scripts (`@plugin …`) and in the REPL
/// (`/load …`). Values may be quoted with `"` or `'` to hold spaces.
///
/// A spec is text until a plugin host (TideLua) loads what it names: the log and the server keep
/// specs without knowing how plugins run.
public struct PluginSpec: Sendable, Hashable, CustomStringConvertible {
    /// The plugin's name or path.
    public var name: String
    /// Option values as written, in order.
    public var options: [Option]

    /// One `key=value`.
    public struct Option: Sendable, Hashable {
        /// The option's name.
        public var key: String
        /// Its value, as written.
        public var value: String

        /// Creates an option.
        public init(key: String, value: String) {
            self.key = key
            self.value = value
        }
    }

    /// A spec naming `name` with `options`.
    public init(name: String, options: [Option] = []) {
        self.name = name
        self.options = options
    }

    /// Parses `NAME key=value …`.
    public init(parsing text: String) throws(PluginSpecError) {
        let words = try Self.words(text)
        guard let name = words.first else { throw PluginSpecError(spec: text, problem: "it names no plugin") }
        self.name = name
        options = []
        for word in words.dropFirst() {
            guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
                throw PluginSpecError(spec: text, problem: "'\(word)' is not key=value")
            }
            options.append(Option(key: String(word[..<equals]), value: String(word[word.index(after: equals)...])))
        }
    }

    /// Whether `name` is a path to a file rather than a name to look up.
    public static func isPath(_ name: String) -> Bool {
        name.contains("/") || name.hasSuffix(".lua")
    }

    /// The plugin's name: ``name``, or the file's name without its extension when it is a path.
    public var pluginName: String {
        guard Self.isPath(name) else { return name }
        let file = name.split(separator: "/").last.map(String.init) ?? name
        guard let dot = file.lastIndex(of: "."), dot != file.startIndex else { return file }
        return String(file[..<dot])
    }

    public var description: String {
        ([name] + options.map { "\($0.key)=" + ($0.value.contains(" ") ? "\"\($0.value)\"" : $0.value) })
            .joined(separator: " ")
    }

    /// Splits on spaces outside quotes; quotes are removed.
    private static func words(_ text: String) throws(PluginSpecError) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character?
        for character in text {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "\"" || character == "'" {
                quote = character
                inWord = true
            } else if character.isWhitespace {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(character)
                inWord = true
            }
        }
        if quote != nil { throw PluginSpecError(spec: text, problem: "a quote is not closed") }
        if inWord { words.append(current) }
        return words
    }
}

/// `NAME key=value …` that does not parse.
public struct PluginSpecError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The spec as written.
    public let spec: String
    /// What is wrong with it.
    public let problem: String

    public var description: String { "bad plugin spec '\(spec)': \(problem) (write NAME key=value …)" }
}
