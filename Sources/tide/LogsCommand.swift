import ArgumentParser
import Foundation
import TideCore
import TideLog
import TideProvider
import TideReports
import TideRunner

/// `tide logs`: the conversation log — every exchange of `generate`, `chat`, `run` (and `serve
/// --log`) in a SQLite database — listed, searched, shown, exported as scripts, removed.
struct LogsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logs",
        abstract: "List, search, show and export the conversation log.",
        discussion: """
            Tide keeps every exchange of tide generate, tide chat and tide run (and of tide serve \
            --log) in a SQLite database, $XDG_DATA_HOME/tide/logs.db (~/.local/share/tide/logs.db). \
            --no-log on a command, TIDE_NO_LOG=1, or tide logs off keeps exchanges out of it.

            Examples:
              tide logs                       # the newest conversations
              tide logs search 'capital AND France'
              tide logs show 12
              tide logs export 12 -o capitals.tide && tide run capitals.tide
            """,
        subcommands: [List.self, Search.self, Show.self, Export.self, Remove.self, Path.self, On.self, Off.self, Status.self],
        defaultSubcommand: List.self
    )

    /// The log, for a command (whether or not logging is on); `nil` when nothing was ever logged,
    /// so that reading the log never creates one.
    static func database() -> LogDatabase? {
        let path = LogLocation().database
        guard FileManager.default.fileExists(atPath: path.path) else { return nil }
        return LogDatabase(path: path) { Terminal.warn("tide: warning: " + $0) }
    }

    /// The log, or the error a command that needs a logged conversation gives without one.
    static func existingDatabase() throws -> LogDatabase {
        guard let database = database() else {
            throw CommandFailure("nothing is logged yet (the log will be \(LogLocation().database.path))")
        }
        return database
    }

    /// What the listing commands say when nothing was ever logged.
    static var nothingLogged: String { "Nothing is logged yet; the log will be \(LogLocation().database.path)." }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the newest conversations, newest first.")

        @Option(name: [.customShort("n"), .customLong("count")], parsing: .unconditional, help: "How many conversations.")
        var count = 20

        @Option(help: "Only conversations on this model.")
        var model: String?

        @Option(help: "Only conversations from generate, chat, run or serve.")
        var source: LogSource?

        @Flag(help: "One JSON object per conversation: id, started, model, source, origin, first_message, replies.")
        var json = false

        func validate() throws {
            if count < 1 { throw ValidationError("-n must be at least 1, not \(count)") }
        }

        func run() throws {
            guard let database = LogsCommand.database() else {
                if !json { print(LogsCommand.nothingLogged) }
                return
            }
            let conversations = try database.conversations(LogDatabase.Filter(model: model, source: source), limit: count)
            if json {
                for conversation in conversations { print(JSONOutput.line(conversation)) }
                return
            }
            guard !conversations.isEmpty else {
                print("No conversations logged" + (model != nil || source != nil ? " that match" : " yet") + ".")
                return
            }
            let rows = [["ID", "STARTED", "SOURCE", "MODEL", "REPLIES", "FIRST MESSAGE"]] + conversations.map { conversation in
                ["\(conversation.id)", conversation.localStart, conversation.source.rawValue, conversation.model,
                 "\(conversation.replies)", ColumnText.cell(conversation.firstMessage)]
            }
            for line in ColumnText.lines(rows) { print(line) }
        }
    }

    struct Search: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Find messages by their words, newest first.",
            discussion: "The query is SQLite FTS5's: words (all must match), \"a phrase\", OR, NOT, prefix*.")

        @Argument(help: "What to find.")
        var query: String

        @Option(name: [.customShort("n"), .customLong("count")], parsing: .unconditional, help: "How many messages.")
        var count = 20

        @Flag(help: "One JSON object per message: conversation, role, excerpt (matches between ** and **).")
        var json = false

        func validate() throws {
            if query.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("give words to search for") }
            if count < 1 { throw ValidationError("-n must be at least 1, not \(count)") }
        }

        func run() throws {
            let style = json ? TextStyle(enabled: false) : TextStyle.standardOutput
            let (open, close) = style.enabled ? ("\u{1B}[1;33m", "\u{1B}[0m") : ("**", "**")
            guard let database = LogsCommand.database() else {
                if !json { print(LogsCommand.nothingLogged) }
                return
            }
            let hits = try database.search(query, limit: count, open: open, close: close)
            if json {
                struct Hit: Encodable { var conversation: Int64, role: String, excerpt: String }
                for hit in hits { print(JSONOutput.line(Hit(conversation: hit.conversation.id, role: hit.role.rawValue, excerpt: hit.excerpt))) }
                return
            }
            guard !hits.isEmpty else {
                print("No message matches \(query).")
                return
            }
            for hit in hits {
                print(style.dim("#\(hit.conversation.id) \(hit.conversation.localStart) \(hit.conversation.model) \(hit.role.rawValue):")
                      + " " + hit.excerpt.split(whereSeparator: \.isNewline).joined(separator: " "))
            }
        }
    }

    /// The id argument of `show` and `export`: a conversation's id, or none for the newest.
    struct ConversationChoice: ParsableArguments {
        @Argument(help: "The conversation's id (default: the newest).")
        var id: Int64?

        func conversation(in database: LogDatabase) throws -> LoggedConversation {
            guard let id = try id ?? database.conversations(limit: 1).first?.id else {
                throw CommandFailure("the log holds no conversation yet")
            }
            guard let conversation = try database.conversation(id) else {
                throw CommandFailure("the log holds no conversation \(id); tide logs lists them")
            }
            return conversation
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a conversation whole, with each reply's figures.")

        @OptionGroup var choice: ConversationChoice

        @Flag(help: "The conversation as one JSON object: summary and messages, each reply with its parameters and figures.")
        var json = false

        func run() throws {
            let conversation = try choice.conversation(in: LogsCommand.existingDatabase())
            if json {
                print(JSONOutput.line(conversation))
                return
            }
            let style = TextStyle.standardOutput
            let summary = conversation.summary
            print(style.bold("Conversation \(summary.id)") + " · \(summary.localStart) · \(summary.source.rawValue)"
                  + (summary.origin.map { " \($0)" } ?? "") + " · \(summary.model)")
            for message in conversation.messages {
                // A reply's tool calls come before it, as the chat shows them.
                for logged in message.reply?.toolCalls ?? [] {
                    let result = logged.result.map {
                        ToolReport.line(ToolResult(call: logged.call, content: $0, failed: logged.failed, duration: .seconds(logged.seconds ?? 0)))
                    } ?? "tool \(logged.call.name) \(logged.call.arguments): left to the caller"
                    print("\n" + style.dim(result + (logged.given ? " (given)" : "")))
                }
                if let reasoning = message.reasoning { print("\n" + style.dim("reasoning: " + reasoning)) }
                print("\n" + style.bold(message.role.rawValue + ":") + " " + message.content)
                if let reply = message.reply { print(style.dim("  " + LogsCommand.figures(reply))) }
            }
        }
    }

    /// A reply's figures on one line.
    static func figures(_ reply: LoggedReply) -> String {
        var parts = [reply.interrupted ? "interrupted" : "stop \(reply.stopReason ?? "error")"]
        if let tokens = reply.generatedTokens {
            parts.append("\(tokens) tokens" + (reply.reasoningTokens.map { " (\($0) reasoning)" } ?? ""))
        }
        if let rate = reply.tokensPerSecond { parts.append(String(format: "%.1f tok/s", rate)) }
        if let first = reply.timeToFirstToken { parts.append(String(format: "first token %.2f s", first)) }
        if let hooks = reply.hookSeconds, hooks >= 0.0005 { parts.append(String(format: "plugins %.3f s", hooks)) }
        if reply.rewinds > 0 { parts.append("\(reply.rewinds) rewinds") }
        let parameters = reply.parameters.parameters
        parts.append("temperature \(parameters.temperature)" + (parameters.seed.map { " seed \($0)" } ?? ""))
        if !reply.plugins.isEmpty { parts.append("plugins: " + reply.plugins.joined(separator: ", ")) }
        return parts.joined(separator: " · ")
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a conversation as a script that tide run replays and checks.")

        @OptionGroup var choice: ConversationChoice

        @Option(name: [.short, .customLong("output")], help: "The file to write (default: standard output).")
        var output: String?

        func run() throws {
            let conversation = try choice.conversation(in: LogsCommand.existingDatabase())
            // Parameters equal to the model's defaults are left out, as a replay starts from them.
            let defaults = (try? ModelSetup(model: conversation.summary.model).modelDefaults().generationParameters)
            let script = conversation.script(defaults: defaults ?? GenerationParameters())
            guard let output else {
                print(script.printed(), terminator: "")
                return
            }
            try ScriptFiles.write(script, to: output)
            Terminal.warn("wrote conversation \(conversation.summary.id) to \(output); replay it with: tide run \(output)")
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Delete conversations from the log.")

        @Argument(help: "The conversations' ids.")
        var ids: [Int64]

        func validate() throws {
            if ids.isEmpty { throw ValidationError("give the ids of the conversations to delete (tide logs lists them)") }
        }

        func run() throws {
            let removed = try LogsCommand.existingDatabase().remove(ids)
            let missing = ids.filter { !removed.contains($0) }
            if !removed.isEmpty { print("deleted conversation\(removed.count == 1 ? "" : "s") " + removed.map(String.init).joined(separator: ", ")) }
            if !missing.isEmpty {
                throw CommandFailure("the log holds no conversation " + missing.map(String.init).joined(separator: ", "))
            }
        }
    }

    struct Path: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print where the log is kept.")

        func run() {
            print(LogLocation().database.path)
        }
    }

    struct On: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Log exchanges from now on (the default).")

        func run() throws {
            try LogLocation().setSwitchedOff(false)
            print("Logging is on" + (LogLocation().disabledByEnvironment ? ", but TIDE_NO_LOG keeps this shell's commands out" : "") + ".")
        }
    }

    struct Off: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop logging exchanges until tide logs on.")

        func run() throws {
            try LogLocation().setSwitchedOff(true)
            print("Logging is off; what is logged stays (tide logs rm deletes).")
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Say whether logging is on, where the log is and what it holds.")

        func run() throws {
            let location = LogLocation()
            print("Logging is " + (location.offReason.map { "off: \($0)" } ?? "on") + ".")
            print("Log: \(location.database.path)")
            guard FileManager.default.fileExists(atPath: location.database.path) else {
                print("Nothing logged yet.")
                return
            }
            let counts = try LogsCommand.existingDatabase().counts()
            let size = (try? FileManager.default.attributesOfItem(atPath: location.database.path)[.size] as? Int64) ?? 0
            print("\(counts.conversations) conversations, \(counts.messages) messages, \(Terminal.bytes(size)).")
        }
    }
}

extension LogSource: ExpressibleByArgument {}
