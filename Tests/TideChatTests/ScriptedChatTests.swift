import Foundation
import Testing
@testable import TideChat
import TideCore
import TideLua
import TideProvider
import TideRunner
import TideTestSupport

/// The chat controller's logic on a scripted model (replies "You said: …"): no model file.
@Suite struct ScriptedChatTests {
    typealias Recorder = ChatControllerTests.Recorder
    let recorder = Recorder()
    let plugins: URL
    let models = FixedModelProvider(ScriptedModel.echo())

    init() throws {
        plugins = try ScratchPlugins.folder(["tag": ScratchPlugins.tag])
    }

    func chat(_ configure: (inout ChatConfiguration) -> Void = { _ in }) throws -> ChatController {
        var configuration = ChatConfiguration(locator: PluginLocator(directories: [plugins]))
        configure(&configuration)
        return try ChatController(configuration: configuration, models: models, output: recorder.record)
    }

    /// A thinking model's reasoning is shown apart from the reply (on a line of its own before
    /// it), or hidden with `/set reasoning hide`; the history keeps it either way.
    @Test func reasoningIsShownOrHidden() async throws {
        var model = ScriptedModel(name: "thinker") { _ in ["<think>", "Hmm.", "</think>", "\n\nYes."] }
        model.reasoningMarkers = ReasoningMarkers()
        let chat = try ChatController(configuration: ChatConfiguration(locator: PluginLocator(directories: [plugins])),
                                      models: FixedModelProvider(model), output: recorder.record)
        _ = await chat.handle("Sure?")
        let shown = recorder.take()
        #expect(shown.contains(.replyReasoning("Hmm.")) && shown.contains(.replyReasoning("\n")) && shown.contains(.replyText("Yes.")))
        _ = await chat.handle("/set reasoning hide")
        _ = await chat.handle("Again?")
        let hidden = recorder.take()
        #expect(!hidden.contains { if case .replyReasoning = $0 { true } else { false } } && hidden.contains(.replyText("Yes.")))
        #expect(chat.history.last == ChatMessage(.assistant, "Yes.", reasoning: "Hmm."))
        _ = await chat.handle("/set reasoning aloud")
        #expect(Recorder.problems(in: recorder.take()).contains("/set reasoning is show or hide, not 'aloud'"))
        // `/save` writes each reply's reasoning before it.
        let file = plugins.appendingPathComponent("thinking.tide").path
        _ = await chat.handle("/save \(file)")
        let saved = try String(contentsOfFile: file, encoding: .utf8)
        #expect(saved.components(separatedBy: "reasoning: Hmm.\nassistant: Yes.\n@generated").count == 3, "\(saved)")
    }

    /// Settings changed between turns are written before the turn where they changed, so that
    /// `tide run` generates each reply under the settings it had, and `/open` ends with the
    /// settings the chat ended with.
    @Test func saveRecordsEachChangeAtItsTurn() async throws {
        // Replies show the system prompt; --max-tokens cuts them, and the tag plugin marks them.
        let model = ScriptedModel(name: "scripted") { messages in
            let system = messages.first { $0.role == .system }?.content ?? "none"
            let words = ["(\(system))", "You", "said:"] + (messages.last?.content.split(separator: " ").map(String.init) ?? [])
            return words.enumerated().map { $0.offset == 0 ? $0.element : " " + $0.element }
        }
        let models = FixedModelProvider(model)
        var configuration = ChatConfiguration(plugins: ["tag mark=a"], locator: PluginLocator(directories: [plugins]))
        configuration.parameters.maxTokens = 6
        let chat = try ChatController(configuration: configuration, models: models, output: recorder.record)
        _ = await chat.handle("one two three four five six seven")
        for command in ["/set max-tokens 3", "/set temperature 0", "/system Be terse.", "/unload tag", "/load tag mark=b"] {
            _ = await chat.handle(command)
        }
        _ = await chat.handle("alpha beta gamma delta")
        _ = await chat.handle("/set max-tokens 10")
        #expect(Recorder.problems(in: recorder.take()) == "")
        let replies = chat.history.filter { $0.role == .assistant }.map(\.content)
        #expect(replies == ["(You are a scripted assistant.) You said: one two three[a]", "(Be terse.) You said:[b]"])

        let file = plugins.appendingPathComponent("changes.tide").path
        _ = await chat.handle("/save \(file)")
        let saved = try String(contentsOfFile: file, encoding: .utf8)
        #expect(saved.contains("@max-tokens 6\n@plugin tag mark=a\n\nsystem: You are a scripted assistant.\n\nuser: one two"), "\(saved)")
        #expect(saved.contains("@generated stop=\"max-tokens\" tokens=6\n@temperature 0\n@max-tokens 3\n@unload tag\n@plugin tag mark=b\n\n"
            + "system: Be terse.\n\nuser: alpha beta gamma delta\n"), "\(saved)")
        #expect(saved.hasSuffix("# settings changed after the last message\n@max-tokens 10\n"), "\(saved)")

        var runner = ScriptRunner(backends: SequentialBackends(models: models))
        runner.locator = PluginLocator(directories: [plugins])
        let run = await runner.run(file: file)
        #expect(run.failure == nil)
        #expect(run.replies.map(\.text) == replies, "each reply generated again under the settings it had")

        let again = try ChatController(configuration: ChatConfiguration(locator: PluginLocator(directories: [plugins])), models: models,
                                       output: recorder.record)
        _ = await again.handle("/open \(file)")
        #expect(Recorder.problems(in: recorder.take()) == "")
        #expect(again.history == chat.history)
        #expect(again.parameters.maxTokens == 10 && again.parameters.temperature == 0)
        #expect(again.plugins.map(\.spec.description) == ["tag mark=b"])
        let resaved = plugins.appendingPathComponent("resaved.tide").path
        _ = await again.handle("/save \(resaved)")
        let body = { (text: String) in text.split(separator: "\n").dropFirst().joined(separator: "\n") }
        #expect(body(try String(contentsOfFile: resaved, encoding: .utf8)) == body(saved), "saving an opened chat writes the same script")
    }

    /// A plugin that fails in the middle of a reply is reported after the reply has ended, so
    /// that the message does not break the reply's text.
    @Test func aPluginFailureIsShownAfterTheReply() async throws {
        let folder = try ScratchPlugins.folder(["boom": """
            local count = 0
            return { on_token = function(token) count = count + 1; if count == 2 then error("boom") end end }
            """])
        let chat = try ChatController(configuration: ChatConfiguration(plugins: ["boom"], locator: PluginLocator(directories: [folder])),
                                      models: models, output: recorder.record)
        _ = await chat.handle("tell me more")
        let events = recorder.take()
        let ended = try #require(events.firstIndex { if case .replyEnded = $0 { true } else { false } })
        let problem = try #require(events.firstIndex { if case .problem = $0 { true } else { false } })
        #expect(problem > ended, "\(events)")
        #expect(Recorder.problems(in: events).contains("boom"))
        #expect(Recorder.reply(in: events).hasPrefix("You said: tell"))
    }

    /// `/save` writes what `tide run` replays to the same replies, and what `/open` makes the
    /// same conversation again — through the one script interpreter, with a plugin of a loaded
    /// name replacing it rather than running twice.
    @Test func saveRunAndOpenRoundTrip() async throws {
        let chat = try chat { $0.plugins = ["tag mark=x"]; $0.parameters.maxTokens = 4 }
        _ = await chat.handle("/set temperature 0")
        _ = await chat.handle("first question here")
        _ = await chat.handle("second")
        let replies = chat.history.filter { $0.role == .assistant }.map(\.content)
        #expect(replies == ["You said: first question[x]", "You said: second[x]"])
        let file = plugins.appendingPathComponent("saved.tide").path
        _ = await chat.handle("/save \(file)")
        let saved = try String(contentsOfFile: file, encoding: .utf8)
        #expect(saved.contains("@temperature 0\n@max-tokens 4\n@plugin tag mark=x\n"))

        var runner = ScriptRunner(backends: SequentialBackends(models: models))
        runner.locator = PluginLocator(directories: [plugins])
        let run = await runner.run(file: file)
        #expect(run.failure == nil)
        #expect(run.replies.map(\.text) == replies, "tide run gives the chat's replies")
        let transcript = plugins.appendingPathComponent("transcript.tide").path
        try ScriptFiles.write(try #require(run.transcript), to: transcript)

        for opened in [file, transcript] {
            let again = try self.chat { $0.plugins = ["tag mark=x"] }
            _ = await again.handle("/open \(opened)")
            #expect(Recorder.problems(in: recorder.take()) == "")
            #expect(again.history == chat.history, "\(opened)")
            #expect(again.pluginNames == ["tag"], "the script's @plugin tag replaced the loaded one")
            #expect(again.parameters.maxTokens == 4)
            _ = await again.handle("third")
            #expect(again.history.last?.content == "You said: third[x]", "one tag, not two")
        }
    }

    @Test func aScriptThatCannotRunChangesNothing() async throws {
        let chat = try chat()
        _ = await chat.handle("hello")
        _ = recorder.take()
        let file = plugins.appendingPathComponent("bad.tide").path
        for (script, problem) in [("@temperature 0\n@unload tag\nuser: x\n", "\(file):2: @unload tag: no plugin of that name is loaded here; loaded: none"),
                                  ("@temperature 0\n@plugin nowhere\nuser: x\n", "\(file):2: @plugin nowhere: no plugin 'nowhere'")] {
            try script.write(toFile: file, atomically: true, encoding: .utf8)
            _ = await chat.handle("/open \(file)")
            #expect(Recorder.problems(in: recorder.take()).contains(problem))
            #expect(chat.history.map(\.content) == ["You are a scripted assistant.", "hello", "You said: hello"])
            #expect(chat.parameters.temperature != 0)
        }
    }

    /// `/stats` counts the rewinds of the last reply and the tokens they took back.
    @Test func statsReportRewinds() async throws {
        let folder = try ScratchPlugins.folder(["unsay": """
            -- Takes back " said" wherever it appears.
            return {
              rewind_window = 16,
              should_stop = function(reply)
                local at = reply.text:find(" said", 1, true)
                if at then tide.rewind(at) end
              end,
            }
            """])
        let chat = try ChatController(configuration: ChatConfiguration(plugins: ["unsay"], locator: PluginLocator(directories: [folder])),
                                      models: models, output: recorder.record)
        _ = await chat.handle("hello")
        #expect(chat.history.last?.content == "You hello", "the scripted model skips the banned token")
        _ = recorder.take()
        _ = await chat.handle("/stats")
        #expect(Recorder.notices(in: recorder.take()).contains("rewinds: 1 (1 token taken back)"))
    }

    /// The chat names the settings that get past an error as its front end says them.
    @Test func problemsNameTheirRemediesAsConfigured() async throws {
        let chat = try ChatController(configuration: ChatConfiguration(remedyName: { "set \($0)" }),
                                      models: FixedModelProvider(ScriptedModel.echo(contextSize: 60)), output: recorder.record)
        _ = await chat.handle(String(repeating: "word ", count: 20))
        let problems = Recorder.problems(in: recorder.take())
        #expect(problems.hasSuffix("drop the oldest turns (set contextSize, set dropOldestTurns)"), "\(problems)")
    }
}
