import Foundation
import GRDB
import Synchronization
import Testing
import TideCore
import TideFormat
import TideLog
import TideScript
import TideTestSupport

/// The conversation log on real SQLite files, fed by sessions on scripted backends.
@Suite struct ConversationLogTests {
    /// A folder of its own for each test, removed after it.
    final class Folder {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tide-log-\(UUID().uuidString)")
        var database: URL { url.appendingPathComponent("logs.db") }
        init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: url) }
    }

    /// The warnings a log gave.
    final class Warnings: Sendable {
        private let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    /// A session on a backend that echoes, whose exchanges go to `log`.
    static func session(_ log: ConversationLog?, system: String? = "Be brief.", hooks: [any ChatHook] = []) -> ChatSession {
        let backend = ScriptedBackend { messages in ["You", " said:", " " + (messages.last?.content ?? "")] }
        let session = ChatSession(backend: backend, systemPrompt: system, hooks: hooks)
        session.recorder = log
        return session
    }

    /// The newest conversation of the log, whole.
    static func newest(in database: LogDatabase, from source: LogSource? = nil) throws -> LoggedConversation {
        let summary = try #require(try database.conversations(LogDatabase.Filter(source: source), limit: 1).first)
        return try #require(try database.conversation(summary.id))
    }

    @Test func everyExchangeIsKeptInOrderWithItsSettingsAndFigures() async throws {
        let folder = try Folder()
        let database = LogDatabase(path: folder.database) { Issue.record("unexpected warning: \($0)") }
        let session = Self.session(ConversationLog(database: database, source: .chat, model: "scripted", origin: "a test"))
        var parameters = GenerationParameters()
        parameters.temperature = 0
        parameters.seed = 7
        session.parameters = parameters
        _ = try await session.reply(to: "hello there").collect()
        _ = try await session.reply(to: "and again").collect()
        database.flush()

        let listed = try database.conversations(limit: 10)
        #expect(listed.count == 1)
        let summary = try #require(listed.first)
        #expect(summary.source == .chat && summary.model == "scripted" && summary.origin == "a test")
        #expect(summary.firstMessage == "hello there")
        #expect(summary.replies == 2)
        let conversation = try #require(try database.conversation(summary.id))
        #expect(conversation.messages.map(\.role) == [.system, .user, .assistant, .user, .assistant])
        #expect(conversation.messages.map(\.content) == ["Be brief.", "hello there", "You said: hello there", "and again", "You said: and again"])
        let reply = try #require(conversation.messages[2].reply)
        #expect(reply.stopReason == "eos")
        #expect(reply.generatedTokens == 3)
        #expect(reply.parameters.parameters.temperature == 0 && reply.parameters.parameters.seed == 7)
        #expect(!reply.interrupted)
        #expect(conversation.messages[1].reply == nil, "only replies carry figures")
    }

    /// A thinking model's reasoning is kept apart from the answer, with the tokens it took.
    @Test func theReasoningIsLoggedApart() async throws {
        let folder = try Folder()
        let database = LogDatabase(path: folder.database) { Issue.record("unexpected warning: \($0)") }
        let backend = ScriptedBackend { _ in ["<think>", "Easy.", "</think>", "\n\n", "Yes."] }
        backend.reasoningMarkers = ReasoningMarkers()
        let session = ChatSession(backend: backend, systemPrompt: "Be brief.")
        session.recorder = ConversationLog(database: database, source: .chat, model: "scripted", origin: nil)
        _ = try await session.reply(to: "Sure?").collect()
        database.flush()
        let reply = try #require(try Self.newest(in: database).messages.last)
        #expect(reply.content == "Yes." && reply.reasoning == "Easy.")
        #expect(reply.reply?.reasoningTokens == 3 && reply.reply?.generatedTokens == 5)
    }

    @Test func searchFindsWordsAndMarksThem() async throws {
        let folder = try Folder()
        let database = LogDatabase(path: folder.database) { Issue.record("unexpected warning: \($0)") }
        _ = try await Self.session(ConversationLog(database: database, source: .generate, model: "scripted"))
            .reply(to: "tides rise twice a day").collect()
        _ = try await Self.session(ConversationLog(database: database, source: .run, model: "scripted"))
            .reply(to: "the moon pulls the sea").collect()
        let hits = try database.search("moon", limit: 10, open: "[", close: "]")
        #expect(hits.map(\.role) == [.assistant, .user], "newest first: the reply was logged after its question")
        #expect(hits.allSatisfy { $0.excerpt.contains("[moon]") && $0.conversation.source == .run })
        #expect(try database.search("tid*", limit: 10, open: "[", close: "]").count == 2)
        #expect(try database.search("sun", limit: 10, open: "[", close: "]").isEmpty)
        // Every query FTS5 cannot read is the query's error, with the syntax to use, never the log's.
        for query in ["AND (", "\"unterminated", "*", "zebra' OR 1=1 --", "NEAR(", "col:moon"] {
            do {
                _ = try database.search(query, limit: 10, open: "[", close: "]")
                Issue.record("ran \(query)")
            } catch let error as LogError {
                #expect(error.description.hasPrefix("'\(query)' is not a search Tide can run ("), "\(error)")
                #expect(error.description.hasSuffix("write words, \"a phrase\" in double quotes, AND, OR, NOT, or a prefix*"))
                #expect(!error.description.contains(folder.database.path), "the log is not to blame: \(error)")
            }
        }
        // Removing a conversation removes its words from the index.
        let moon = try #require(hits.first?.conversation.id)
        #expect(try database.remove([moon, 999]) == [moon])
        #expect(try database.search("moon", limit: 10, open: "[", close: "]").isEmpty)
        #expect(try database.conversations(limit: 10).map(\.source) == [.generate])
    }

    @Test func aHistoryThatNoLongerContinuesTheLogStartsANewConversation() async throws {
        let folder = try Folder()
        let database = LogDatabase(path: folder.database) { Issue.record("unexpected warning: \($0)") }
        let session = Self.session(ConversationLog(database: database, source: .chat, model: "scripted"))
        _ = try await session.reply(to: "one").collect()
        _ = try await session.reply(to: "two").collect()
        session.history = Array(session.history.prefix(3))  // as /undo does
        _ = try await session.reply(to: "three").collect()
        database.flush()
        let conversations = try database.conversations(limit: 10)
        #expect(conversations.map(\.replies) == [1, 2], "the first keeps what was said; the second holds the new history whole, with one new reply")
        let newest = try #require(try database.conversation(conversations[0].id))
        #expect(newest.messages.map(\.content) == ["Be brief.", "one", "You said: one", "three", "You said: three"])
    }

    @Test func aResumedConversationGoesOnInTheSameRecord() async throws {
        let folder = try Folder()
        let database = LogDatabase(path: folder.database) { Issue.record("unexpected warning: \($0)") }
        _ = try await Self.session(ConversationLog(database: database, source: .chat, model: "scripted")).reply(to: "first").collect()
        let logged = try Self.newest(in: database, from: .chat)
        let session = Self.session(ConversationLog(continuing: logged.summary.id, messages: logged.history, database: database,
                                                   source: .chat, model: "scripted"))
        session.history = logged.history
        _ = try await session.reply(to: "second").collect()
        database.flush()
        #expect(try database.conversations(limit: 10).count == 1)
        let resumed = try #require(try database.conversation(logged.summary.id))
        #expect(resumed.messages.map(\.content) == ["Be brief.", "first", "You said: first", "second", "You said: second"])
    }

    @Test func aCancelledReplyIsKeptAsInterrupted() async throws {
        let folder = try Folder()
        let database = LogDatabase(path: folder.database) { Issue.record("unexpected warning: \($0)") }
        let backend = ScriptedBackend(Array(repeating: " word", count: 500))
        backend.tokenDelay = .milliseconds(2)
        let session = ChatSession(backend: backend)
        session.recorder = ConversationLog(database: database, source: .chat, model: "scripted")
        let stream = session.reply(to: "talk")
        var texts = 0
        for try await event in stream {
            if case .text = event { texts += 1 }
            if texts == 5 { session.cancelReply() }
        }
        database.flush()
        let conversation = try Self.newest(in: database, from: .chat)
        let reply = try #require(conversation.messages.last?.reply)
        #expect(reply.interrupted)
        #expect(reply.stopReason == "cancelled")
        #expect(conversation.messages.last?.content.hasPrefix(" word word") == true)
    }

    @Test func aFileThatIsNotALogIsLeftAloneWithOneWarning() async throws {
        let folder = try Folder()
        let garbage = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try garbage.write(to: folder.database)
        let warnings = Warnings()
        let database = LogDatabase(path: folder.database) { warnings.add($0) }
        for message in ["one", "two", "three"] {
            let reply = try await Self.session(ConversationLog(database: database, source: .generate, model: "scripted"))
                .reply(to: message).collect()
            #expect(reply.text == "You said: \(message)", "generation goes on")
        }
        database.flush()
        #expect(warnings.all.count == 1, "\(warnings.all)")
        #expect(warnings.all.first?.contains("is not a Tide log, or is damaged; it is left as it is: move it aside") == true)
        #expect(try Data(contentsOf: folder.database) == garbage, "the file is not overwritten")
        #expect(throws: LogError.self) { try database.conversations(limit: 1) }
    }

    @Test func aLockedLogWarnsOnceAndIsWrittenAgainWhenFreed() async throws {
        let folder = try Folder()
        let warnings = Warnings()
        let database = LogDatabase(path: folder.database) { warnings.add($0) }
        let session = Self.session(ConversationLog(database: database, source: .chat, model: "scripted"))
        _ = try await session.reply(to: "before").collect()
        database.flush()
        // Another program holds the database's write lock for longer than the busy timeout.
        var holding = Configuration()
        holding.allowsUnsafeTransactions = true
        let other = try DatabaseQueue(path: folder.database.path, configuration: holding)
        try other.inDatabase { db in try db.execute(sql: "BEGIN EXCLUSIVE") }
        let reply = try await session.reply(to: "while locked").collect()
        #expect(reply.text == "You said: while locked", "the reply does not wait for the log")
        database.flush()
        #expect(warnings.all.count == 1)
        #expect(warnings.all.first?.contains("is locked by another program") == true, "\(warnings.all)")
        try other.inDatabase { db in try db.execute(sql: "ROLLBACK") }
        try other.close()
        _ = try await session.reply(to: "after").collect()
        database.flush()
        #expect(warnings.all.count == 1, "one warning, however many writes fail")
        // The exchange written while locked is lost; the next one finds the log again (its history
        // no longer continues what was written, so it is a conversation of its own, whole).
        let newest = try Self.newest(in: database)
        #expect(newest.messages.map(\.content).suffix(2) == ["after", "You said: after"])
        #expect(newest.messages.map(\.content).contains("while locked"))
    }

    /// Two processes that log at once to a log that does not exist yet both create it: the one
    /// that loses the race uses the other's schema.
    @Test func twoConnectionsCreatingTheLogAtOnceBothLog() async throws {
        for _ in 0..<10 {
            let folder = try Folder()
            let warnings = Warnings()
            let logs = (0..<2).map { _ in LogDatabase(path: folder.database) { warnings.add($0) } }
            await withTaskGroup(of: Void.self) { group in
                for (index, log) in logs.enumerated() {
                    group.addTask {
                        _ = try? await Self.session(ConversationLog(database: log, source: .chat, model: "scripted"))
                            .reply(to: "from \(index)").collect()
                        log.flush()
                    }
                }
            }
            #expect(warnings.all.isEmpty, "\(warnings.all)")
            #expect(try logs[0].conversations(limit: 10).count == 2)
        }
    }

    @Test func aFolderThatCannotBeMadeIsSaidWithWhatToDo() async throws {
        let warnings = Warnings()
        let database = LogDatabase(path: URL(fileURLWithPath: "/proc/tide-cannot/logs.db")) { warnings.add($0) }
        let reply = try await Self.session(ConversationLog(database: database, source: .generate, model: "scripted")).reply(to: "hi").collect()
        #expect(reply.text == "You said: hi")
        database.flush()
        #expect(warnings.all.count == 1)
        #expect(warnings.all.first?.contains("/proc/tide-cannot/logs.db") == true, "\(warnings.all)")
    }

    /// A logged conversation becomes a script that replays it: the settings of each turn's
    /// reply, the generated replies recorded.
    @Test func anExportRecordsEachReplyUnderItsSettings() async throws {
        let folder = try Folder()
        let database = LogDatabase(path: folder.database) { Issue.record("unexpected warning: \($0)") }
        let session = Self.session(ConversationLog(database: database, source: .chat, model: "scripted"))
        var parameters = GenerationParameters()
        parameters.temperature = 0
        session.parameters = parameters
        _ = try await session.reply(to: "one").collect()
        parameters.maxTokens = 50
        session.parameters = parameters
        _ = try await session.reply(to: "two").collect()
        database.flush()
        let conversation = try Self.newest(in: database, from: .chat)
        let printed = conversation.script(defaults: GenerationParameters()).printed()
        let body = printed.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("#") }.joined(separator: "\n")
            .trimmingCharacters(in: .newlines)
        #expect(body == """
            @model scripted
            @temperature 0

            system: Be brief.

            user: one
            assistant: You said: one
            @generated stop="eos" tokens=3
            @max-tokens 50

            user: two
            assistant: You said: two
            @generated stop="eos" tokens=3
            """, "\(printed)")
        #expect(throws: Never.self) { try ConversationScript(parsing: printed) }
    }

    /// A turn that calls a tool: the log keeps the call with the reply it led to (its result and
    /// time), `tide logs export` writes it as `tool-call:` and `tool:` turns, and a resumed
    /// history has it again. Calls given before a reply (a client's) are marked given.
    @Test func toolCallsAreLoggedWithTheirReplyAndExported() async throws {
        let folder = try Folder()
        let database = LogDatabase(path: folder.database) { Issue.record("unexpected warning: \($0)") }
        // The backend sees the prompt as the format writes it: results in a <tool_response>.
        let backend = ScriptedBackend { messages in
            messages.last?.content.hasPrefix("<tool_response>") == true ? ["The sum is ", "5."] : ["<tool_call>", "\n{\"name\": \"add\", \"arguments\": {\"a\": 2}}\n", "</tool_call>"]
        }
        backend.toolCallReader = HermesToolCalls()
        let session = ChatSession(backend: backend, systemPrompt: "Be brief.", hooks: [FixedTool()])
        session.recorder = ConversationLog(database: database, source: .chat, model: "scripted")
        _ = try await session.reply(to: "Add 2 and 3.").collect()
        // A client's call and result, answered (as tide serve answers them).
        session.history += [ChatMessage(.user, "And this?"),
                            ChatMessage(.assistant, "", toolCalls: [ToolCall(id: "c9", name: "add", arguments: #"{"a":1}"#)]),
                            ChatMessage(.tool, "1", toolCallID: "c9")]
        _ = try await session.replyToToolResults().collect()
        database.flush()

        let conversation = try Self.newest(in: database, from: .chat)
        #expect(conversation.messages.map(\.role) == [.system, .user, .assistant, .user, .assistant])
        let first = try #require(conversation.messages[2].reply)
        #expect(first.toolCalls.map(\.call.name) == ["add"] && first.toolCalls.map(\.result) == ["5"])
        #expect(first.toolCalls.first?.call.written == #"{"name": "add", "arguments": {"a": 2}}"#)
        #expect(first.toolCalls.first?.seconds != nil && first.toolCalls.first?.given == false)
        let second = try #require(conversation.messages[4].reply)
        #expect(second.toolCalls.map(\.given) == [true] && second.toolCalls.first?.call.id == "c9")
        #expect(conversation.history.map(\.role) == [.system, .user, .assistant, .tool, .assistant, .user, .assistant, .tool, .assistant])

        let printed = conversation.script(defaults: GenerationParameters()).printed()
        #expect(printed.contains("""
            user: Add 2 and 3.
            tool-call: {"name": "add", "arguments": {"a": 2}}
            tool: 5
            assistant: The sum is 5.
            @generated stop="eos" tokens=5 rounds=1
            """), "\(printed)")
        #expect(printed.contains("""
            user: And this?
            tool-call: {"name": "add", "arguments": {"a": 1}}
            tool: 1
            assistant: The sum is 5.
            @generated stop="eos" tokens=2
            """), "given calls are history: \(printed)")
        let steps = try ConversationScript(parsing: printed).steps
        let replies = steps.compactMap { if case .reply(let reply) = $0 { reply } else { nil } }
        #expect(replies.map { $0.recorded?.rounds.count } == [1, 0])
        #expect(replies.map(\.given.count) == [0, 1])
    }

    /// A reply that ends with calls left to the caller (a tool no plugin runs) is a turn of the
    /// conversation: the next exchange goes on in the same record.
    @Test func aReplyEndingWithCallsForTheCallerKeepsTheConversationWhole() async throws {
        let folder = try Folder()
        let database = LogDatabase(path: folder.database) { Issue.record("unexpected warning: \($0)") }
        let backend = ScriptedBackend { _ in ["<tool_call>", "\n{\"name\": \"weather\", \"arguments\": {}}\n", "</tool_call>"] }
        backend.toolCallReader = HermesToolCalls()
        let session = ChatSession(backend: backend, systemPrompt: "Be brief.")
        session.parameters.tools = [ToolDefinition(name: "weather", description: "", parameters: #"{"type": "object"}"#)]
        session.recorder = ConversationLog(database: database, source: .chat, model: "scripted")
        _ = try await session.reply(to: "Weather?").collect()
        _ = try await session.reply(to: "And tomorrow?").collect()
        database.flush()
        #expect(try database.conversations(limit: 10).count == 1)
        let conversation = try Self.newest(in: database, from: .chat)
        #expect(conversation.messages.map(\.role) == [.system, .user, .assistant, .user, .assistant])
        #expect(conversation.messages[2].reply?.toolCalls.map(\.result) == [nil], "left to the caller")
    }
}
