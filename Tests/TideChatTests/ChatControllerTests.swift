import Foundation
import Synchronization
import Testing
import TideTestSupport
import TideChat
import TideCore
import TideLua
import TideProvider
import TideModels
import TideRunner

/// The chat's commands on the real model and real Lua plugins.
@Suite(.serialized) struct ChatControllerTests {
    static let models = ModelCache(machine: .underTest)
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A chat whose events are recorded.
    final class Recorder: Sendable {
        private let events = Mutex<[ChatEvent]>([])

        func record(_ event: ChatEvent) { events.withLock { $0.append(event) } }

        /// The events since the last call.
        func take() -> [ChatEvent] { events.withLock { taken in defer { taken = [] }; return taken } }

        static func reply(in events: [ChatEvent]) -> String {
            events.map { if case .replyText(let text) = $0 { text } else { "" } }.joined()
        }

        static func notices(in events: [ChatEvent]) -> String {
            events.compactMap { if case .notice(let text) = $0 { text } else { nil } }.joined(separator: "\n")
        }

        static func problems(in events: [ChatEvent]) -> String {
            events.compactMap { if case .problem(let text) = $0 { text } else { nil } }.joined(separator: "\n")
        }
    }

    let recorder = Recorder()

    func chat(_ configure: (inout ChatConfiguration) -> Void = { _ in }) throws -> ChatController {
        var configuration = ChatConfiguration(locator: PluginLocator(directories: [Self.root.appendingPathComponent("Plugins")]))
        configuration.parameters.temperature = 0
        configuration.parameters.maxTokens = 48
        configure(&configuration)
        return try ChatController(configuration: configuration, models: Self.models,
                                  output: recorder.record)
    }

    func scratchFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tide-chat-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func answersAndKeepsTheConversationInTheCache() async throws {
        let chat = try chat { $0.plugins = [ScratchPlugins.capitalsFile] }
        #expect(await chat.handle("What is the capital of France?") == .proceed)
        let events = recorder.take()
        #expect(Recorder.reply(in: events) == "The capital of France is Paris.")
        #expect(events.last == .replyEnded(.endOfGeneration))
        #expect(chat.history.map(\.role) == [.system, .user, .assistant])
        _ = await chat.handle("And of Germany?")
        #expect(Recorder.reply(in: recorder.take()) == "The capital of Germany is Berlin.")
        let statistics = try #require(chat.lastReply?.statistics)
        #expect(statistics.reusedPromptTokens > 20, "the first exchange comes from the KV cache")
        _ = await chat.handle("/stats")
        #expect(Recorder.notices(in: recorder.take()).contains("prompt tokens: \(statistics.promptTokens) (\(statistics.reusedPromptTokens) reused)"))
    }

    @Test func setShowAndTheirMistakes() async throws {
        let chat = try chat()
        _ = await chat.handle("/stats")
        #expect(Recorder.problems(in: recorder.take()) == "no reply yet")
        _ = await chat.handle("/set temperature 0.3")
        _ = await chat.handle("/set stop \"END\" \"\\n\\n\"")
        _ = await chat.handle("/set seed 7")
        #expect(chat.parameters.temperature == 0.3)
        #expect(chat.parameters.stop == ["END", "\n\n"])
        #expect(chat.parameters.seed == 7)
        #expect(Recorder.notices(in: recorder.take()) == "temperature 0.3\nstop \"END\" \"\\n\\n\"\nseed 7")
        _ = await chat.handle("/set top-k many")
        _ = await chat.handle("/set top-p 2")
        _ = await chat.handle("/set warmth 3")
        _ = await chat.handle("/set temperature 0\nuser: sneaked in")
        #expect(Recorder.problems(in: recorder.take()).split(separator: "\n") == [
            "/set top-k: top-k must be a whole number from 0 to 2147483647, not 'many'",
            "/set top-p: top-p must be a number in (0, 1], not '2'",
            "/set warmth: 'warmth' is not a generation parameter; one of: " + ParameterSetting.names.joined(separator: ", "),
            "/set temperature: a value for temperature fits on one line",
        ])
        #expect(chat.parameters.topK == GenerationParameters().topK)
        _ = await chat.handle("/show")
        let shown = Recorder.notices(in: recorder.take())
        #expect(shown.contains("model: "))
        #expect(shown.contains("context: 15 of 4096 tokens used (trained on 8192)"), "\(shown)")
        #expect(shown.contains("parameters: temperature 0.3 · top-k 40"))
        #expect(shown.contains("seed 7 · max-tokens 48 · stop \"END\" \"\\n\\n\""))
        #expect(shown.contains("plugins: none"))
    }

    @Test func retryUndoResetAndTheSystemPrompt() async throws {
        let chat = try chat()
        _ = await chat.handle("/undo")
        #expect(Recorder.problems(in: recorder.take()) == "there is nothing to undo")
        _ = await chat.handle("What is the capital of France?")
        let first = Recorder.reply(in: recorder.take())
        _ = await chat.handle("/retry")
        #expect(Recorder.reply(in: recorder.take()) == first, "greedy decoding gives the same reply again")
        #expect(chat.history.count == 3)
        _ = await chat.handle("/system Answer in one word.")
        #expect(chat.history.first == ChatMessage(.system, "Answer in one word."))
        _ = await chat.handle("/undo")
        #expect(chat.history == [ChatMessage(.system, "Answer in one word.")])
        _ = await chat.handle("Name a colour.")
        _ = await chat.handle("/reset")
        #expect(chat.history == [ChatMessage(.system, "Answer in one word.")])
        _ = await chat.handle("/system \"\"")
        #expect(chat.history.isEmpty)
        _ = await chat.handle("/retry")
        #expect(Recorder.problems(in: recorder.take()) == "there is no reply to retry")
    }

    @Test func aCancelledReplyIsKeptAndMarked() async throws {
        // A story of certain words, far longer than the wait for its first piece, on any machine.
        let story = String(repeating: "The keeper climbed the stairs and lit the lamp. ", count: 30)
        let chat = try chat { $0.parameters.maxTokens = 400; $0.plugins = [ScratchPlugins.capitalsFile + " text='\(story)'"] }
        let canceller = chat.canceller
        #expect(!canceller.cancel(), "nothing to cancel yet")
        let watcher = Task {
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(60)
            while Recorder.reply(in: recorder.take()).isEmpty, clock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            canceller.cancel()
        }
        _ = await chat.handle("Write a long story about a lighthouse keeper.")
        try await watcher.value
        let last = try #require(chat.history.last)
        #expect(last.interrupted)
        #expect(!last.content.isEmpty)
        #expect(chat.lastReply?.stopReason == .cancelled)
        #expect(chat.script.printed().contains("# interrupted"))
        #expect(!chat.script.printed().contains("@generated"))
        _ = await chat.handle("What is the capital of France?")
        let next = try #require(chat.history.last)
        #expect(next.content.hasPrefix("The keeper climbed") && !next.interrupted, "the chat goes on: \(next.content)")
    }

    @Test func pluginsLoadUnloadAndReloadFromDisk() async throws {
        let folder = try scratchFolder()
        let file = folder.appendingPathComponent("stamp.lua")
        func write(_ reason: String) throws {
            try """
                return { name = "stamp", description = "Stops at once.",
                         should_stop = function(reply) return true, "\(reason)" end }
                """.write(to: file, atomically: true, encoding: .utf8)
        }
        try write("first")
        let chat = try chat()
        _ = await chat.handle("/load \(file.path)")
        _ = await chat.handle("Hello!")
        #expect(chat.lastReply?.stopReason == .hook(name: "stamp", reason: "first"))
        try write("second")
        _ = await chat.handle("/reload stamp")
        #expect(Recorder.notices(in: recorder.take()).contains("reloaded stamp"))
        _ = await chat.handle("Hello again!")
        #expect(chat.lastReply?.stopReason == .hook(name: "stamp", reason: "second"))
        #expect(chat.history.count == 5, "the conversation is kept")
        try "return {".write(to: file, atomically: true, encoding: .utf8)
        _ = await chat.handle("/reload")
        #expect(Recorder.problems(in: recorder.take()).contains("stamp was not reloaded, the loaded version stays"))
        #expect(chat.pluginNames == ["stamp"])
        _ = await chat.handle("/load word-budget words=3")
        _ = await chat.handle("/unload stamp")
        #expect(chat.pluginNames == ["word-budget"])
        _ = await chat.handle("/unload stamp")
        #expect(Recorder.problems(in: recorder.take()) == "no plugin named stamp is loaded; loaded: word-budget")
        _ = await chat.handle("/load no-such-plugin")
        #expect(Recorder.problems(in: recorder.take()).contains("no-such-plugin"))
    }

    @Test func aFailingPluginIsReportedInlineAndDisabled() async throws {
        let folder = try scratchFolder()
        let file = folder.appendingPathComponent("broken.lua")
        try """
            return { name = "broken", on_token = function(token) error("no tokens today") end }
            """.write(to: file, atomically: true, encoding: .utf8)
        let chat = try chat { $0.plugins = [ScratchPlugins.capitalsFile, file.path] }
        _ = await chat.handle("What is the capital of France?")
        let events = recorder.take()
        #expect(Recorder.problems(in: events).contains("no tokens today"))
        #expect(Recorder.problems(in: events).contains("(the plugin is now disabled)"))
        #expect(Recorder.reply(in: events).contains("Paris"), "the reply goes on without the plugin")
        _ = await chat.handle("/plugins")
        #expect(Recorder.notices(in: recorder.take()).contains("(disabled after an error; /reload to enable)"))
    }

    @Test func aSavedChatReplaysWithTideRun() async throws {
        let chat = try chat { $0.plugins = ["word-budget words=12"] }
        _ = await chat.handle("What is the capital of France?")
        _ = await chat.handle("Tell me about the Eiffel Tower.")
        let replies = chat.history.filter { $0.role == .assistant }.map(\.content)
        let file = try scratchFolder().appendingPathComponent("saved")
        _ = await chat.handle("/save \(file.path)")
        #expect(Recorder.notices(in: recorder.take()).contains("saved 2 exchanges to \(file.path).tide"))
        let text = try String(contentsOfFile: file.path + ".tide", encoding: .utf8)
        // The chat's repetition penalty (Tide's 1) differs from the model's default (1.1), so it is
        // written down: the replay starts from the model's defaults.
        #expect(text.contains("@temperature 0\n@repeat-penalty 1\n@max-tokens 48\n@plugin word-budget words=12\n"))
        #expect(text.contains("@generated stop=\"plugin:word-budget"))
        var runner = ScriptRunner(backends: SequentialBackends(models: Self.models))
        runner.locator = PluginLocator(directories: [Self.root.appendingPathComponent("Plugins")])
        let result = await runner.run(file: file.path + ".tide")
        #expect(result.failure == nil)
        #expect(result.replies.map(\.text) == replies, "the same turns, the same replies")
    }

    @Test func openMakesAScriptTheConversation() async throws {
        let folder = try scratchFolder()
        let file = folder.appendingPathComponent("trip.tide")
        try """
            @temperature 0
            @plugin word-budget words=40
            @plugin \(ScratchPlugins.capitalsFile)
            system: You are a travel guide.
            user: Hi!
            assistant: Hello! Where to?
            user: Somewhere warm.
            assistant: Try Lisbon.
            @generated stop="eos" tokens=4
            user: What is the capital of France?
            expect: contains "Paris"
            """.write(to: file, atomically: true, encoding: .utf8)
        let chat = try chat { $0.parameters.temperature = 0.9 }
        _ = await chat.handle("/open \(file.path)")
        let events = recorder.take()
        #expect(events.contains(.userTurn("What is the capital of France?")))
        #expect(Recorder.reply(in: events).contains("Paris"))
        #expect(chat.history.map(\.content).prefix(5) == ["You are a travel guide.", "Hi!", "Hello! Where to?",
                                                          "Somewhere warm.", "Try Lisbon."])
        #expect(chat.history.count == 7)
        #expect(chat.parameters.temperature == 0)
        #expect(chat.pluginNames == ["word-budget", "capitals"])
        let saved = chat.script.printed()
        #expect(saved.contains("user: Hi!\nassistant: Hello! Where to?\n\nuser: Somewhere warm.\nassistant: Try Lisbon.\n@generated stop=\"eos\" tokens=4\n"))

        try "@temperature hot".write(to: file, atomically: true, encoding: .utf8)
        _ = await chat.handle("/open \(file.path)")
        #expect(Recorder.problems(in: recorder.take()).contains("\(file.path):1:"))
        #expect(chat.history.count == 7, "a script that cannot be read changes nothing")

        try "@plugin word-budget words=5\n@unload censor-words\nuser: Hi\n".write(to: file, atomically: true, encoding: .utf8)
        _ = await chat.handle("/open \(file.path)")
        #expect(Recorder.problems(in: recorder.take())
            .contains("\(file.path):2: @unload censor-words: no plugin of that name is loaded here; loaded: word-budget, capitals"))
        #expect(chat.history.count == 7, "an @unload of no loaded plugin changes nothing, as in tide run")
        #expect(chat.pluginNames == ["word-budget", "capitals"])

        try "user: What is the capital of Italy?\n".write(to: file, atomically: true, encoding: .utf8)
        _ = await chat.handle("/system Answer briefly.")
        _ = await chat.handle("/open \(file.path)")
        #expect(chat.history.first == ChatMessage(.system, "Answer briefly."), "a script without a system turn keeps the chat's")
        #expect(chat.history.count == 3)
    }

    @Test func switchingModelsKeepsTheConversation() async throws {
        let chat = try chat { $0.plugins = [ScratchPlugins.capitalsFile] }
        _ = await chat.handle("What is the capital of France?")
        let path = try ModelStore.standard.resolve(ModelSetup().model).path
        _ = await chat.handle("/model \(path)")
        #expect(Recorder.notices(in: recorder.take()).contains("the conversation is kept"))
        #expect(chat.history.count == 3)
        _ = await chat.handle("/model no-such-model")
        #expect(Recorder.problems(in: recorder.take()).contains("no-such-model"))
        _ = await chat.handle("And of Italy?")
        #expect(Recorder.reply(in: recorder.take()) == "The capital of Italy is Rome.")
    }
}
