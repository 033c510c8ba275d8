import Foundation
import TideCore
import TideScript

/// A chat command: a line that starts with `/`.
public enum SlashCommand: Sendable, Hashable {
    case help
    /// `/system` shows the system prompt; `/system TEXT` replaces it; `/system ""` removes it.
    case system(String?)
    /// `/set` lists the parameters; `/set NAME VALUE` changes one.
    case set(name: String?, value: String)
    case show
    case plugins
    /// `/load NAME key=value …`: the plugin spec.
    case load(String)
    case unload(String)
    /// `/reload` re-reads every plugin; `/reload NAME` one of them.
    case reload(String?)
    case retry
    case undo
    case reset
    case stats
    /// `/trace` says where hook calls are traced; `/trace on [FILE]` and `/trace off` choose.
    case trace(TraceSetting?)
    case save(String)
    case open(String)
    /// `/tools` lists the tools of the loaded plugins; `/tools enable|disable NAME|all` chooses
    /// which are offered.
    case tools(String?)
    /// `/history [N]`: the newest conversations of the log.
    case history(Int)
    /// `/model` shows the model; `/model NAME|PATH` switches to another.
    case model(String?)
    case quit

    /// What `/trace` asks for.
    public enum TraceSetting: Sendable, Hashable {
        /// Trace into the chat, or into the JSON Lines file at the path.
        case on(String?)
        /// Stop tracing.
        case off

        /// Reads `/trace`'s argument; `nil` for none.
        init?(parsing argument: String?, usage: String) throws(SlashCommandError) {
            guard let argument else { return nil }
            let words = argument.split(separator: " ", maxSplits: 1).map(String.init)
            switch words[0] {
            case "on": self = .on(words.count > 1 ? words[1].trimmingCharacters(in: .whitespaces) : nil)
            case "off" where words.count == 1: self = .off
            default: throw .invalidArgument(usage)
            }
        }
    }

    /// What `/help` lists, in order: how to write each command and what it does.
    public static let catalogue: [(name: String, usage: String, summary: String)] = [
        ("help", "/help", "list the commands"),
        ("system", "/system [TEXT]", "show or replace the system prompt (/system \"\" removes it)"),
        ("set", "/set [NAME VALUE]", "change a generation parameter or the replies' format: "
            + ChatController.settingNames.joined(separator: ", ")),
        ("show", "/show", "the model, parameters, plugins and how much of the context is used"),
        ("plugins", "/plugins", "the plugins loaded and those that can be loaded"),
        ("tools", "/tools [enable|disable NAME|all]", "the loaded plugins' tools, and which are offered to the model"),
        ("load", "/load NAME [key=value …]", "load a plugin (after those loaded)"),
        ("unload", "/unload NAME", "unload a plugin"),
        ("reload", "/reload [NAME]", "read plugin files again, keeping the conversation"),
        ("retry", "/retry", "generate the last reply again"),
        ("undo", "/undo", "drop the last exchange"),
        ("reset", "/reset", "start the conversation again (keeps the system prompt, parameters and plugins)"),
        ("stats", "/stats", "the last reply's tokens, time to first token, tokens/s, stop reason and each plugin's cost"),
        ("trace", "/trace [on [FILE]|off]", "show every hook call as it happens (or write them to FILE as JSON Lines), rewinds too"),
        ("save", "/save FILE", "save the conversation as a conversation script (tide run replays it)"),
        ("open", "/open FILE", "load a conversation script's settings and turns as the conversation"),
        ("history", "/history [N]", "the newest conversations of the log (tide chat --resume ID goes on with one)"),
        ("model", "/model [NAME|PATH]", "show the model, or switch to another keeping the conversation"),
        ("quit", "/quit", "leave (as does Ctrl-D)"),
    ]

    /// Reads a command line (`/name arguments`). Throws ``SlashCommandError`` for an unknown
    /// command or missing or extra arguments, with the command's usage.
    public init(parsing line: String) throws(SlashCommandError) {
        let text = line.trimmingCharacters(in: .whitespaces)
        precondition(text.hasPrefix("/"), "a command starts with /")
        let body = text.dropFirst()
        let name = String(body.prefix { !$0.isWhitespace })
        let argument = body.dropFirst(name.count).trimmingCharacters(in: .whitespaces)
        let given = argument.isEmpty ? nil : argument

        func required() throws(SlashCommandError) -> String {
            guard let given else { throw .missingArgument(Self.usage(of: name)) }
            return given
        }
        func none() throws(SlashCommandError) {
            if given != nil { throw .unexpectedArgument(Self.usage(of: name)) }
        }

        switch name {
        case "help", "?": try none(); self = .help
        case "system": self = .system(given.map { $0 == "\"\"" ? "" : $0 })
        case "set":
            guard let given else { self = .set(name: nil, value: ""); return }
            let parameter = String(given.prefix { !$0.isWhitespace })
            self = .set(name: parameter.replacingOccurrences(of: "_", with: "-"),
                        value: given.dropFirst(parameter.count).trimmingCharacters(in: .whitespaces))
        case "show": try none(); self = .show
        case "plugins": try none(); self = .plugins
        case "tools": self = .tools(given)
        case "load": self = .load(try required())
        case "unload": self = .unload(try required())
        case "reload": self = .reload(given)
        case "retry": try none(); self = .retry
        case "undo": try none(); self = .undo
        case "reset", "clear": try none(); self = .reset
        case "stats": try none(); self = .stats
        case "trace": self = .trace(try TraceSetting(parsing: given, usage: Self.usage(of: name)))
        case "save": self = .save(try required())
        case "open": self = .open(try required())
        case "history":
            guard let given else { self = .history(10); return }
            guard let count = Int(given), count > 0 else { throw .missingArgument(Self.usage(of: name) + ", N a number above 0") }
            self = .history(count)
        case "model": self = .model(given)
        case "quit", "exit", "bye": try none(); self = .quit
        default: throw .unknown(name)
        }
    }

    /// The command names, for completion.
    public static var names: [String] { catalogue.map(\.name) }

    static func usage(of name: String) -> String {
        catalogue.first { $0.name == name }?.usage ?? "/\(name)"
    }
}

/// A command line that is not a command Tide knows, or not written as its usage says.
public enum SlashCommandError: Error, Sendable, Hashable, CustomStringConvertible {
    case unknown(String)
    case missingArgument(String)
    case unexpectedArgument(String)
    /// An argument the command does not take, with its usage.
    case invalidArgument(String)

    public var description: String {
        switch self {
        case .unknown(let name):
            let near = SlashCommand.names.filter { $0.hasPrefix(String(name.prefix(2))) && !name.isEmpty }
            return "unknown command /\(name)" + (near.isEmpty ? "" : " (did you mean " + near.map { "/" + $0 }.joined(separator: " or ") + "?)")
                + "; /help lists the commands"
        case .missingArgument(let usage): return "usage: \(usage)"
        case .unexpectedArgument(let usage): return "usage: \(usage) (it takes no arguments)"
        case .invalidArgument(let usage): return "usage: \(usage)"
        }
    }
}
