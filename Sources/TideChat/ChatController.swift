import Foundation
import TideCore
import TideRunner
import TideScript
import TideFormat
import TideLog
import TideLua
import TideModels
import TideProvider
import TideScript

/// An interactive chat: a session with a model and plugins, driven by typed inputs — messages,
/// and `/` commands that change the session without losing the conversation.
///
/// The controller holds no terminal: it reports everything as ``ChatEvent``s, which the REPL of
/// `tide chat` draws and tests record.
///
/// ```swift
/// let chat = try ChatController(configuration: ChatConfiguration(), models: ModelCache(), output: { print($0) })
/// _ = await chat.handle("What is the capital of France?")
/// _ = await chat.handle("/stats")
/// ```
public final class ChatController {
    /// Cancels the running reply from another thread (Ctrl-C).
    public let canceller = ReplyCanceller()

    let configuration: ChatConfiguration
    /// Where the first model and `/model`'s come from (the REPL's shows a progress bar).
    let models: any ModelProvider
    let output: @Sendable (ChatEvent) -> Void
    var setup: ModelSetup
    var model: any ChatModel
    var session: ChatSession
    /// Plugins in hook order, with the specs they were loaded from (for `/reload` and `/save`).
    var plugins: [ActivePlugin]
    /// Whether the system prompt was chosen (`--system`, `/system`), rather than the model's default.
    var systemPromptChosen: Bool
    /// One record per assistant message in the history, in order: how a generated reply ended;
    /// `nil` for a written or interrupted reply.
    var records: [ReplyRecord?] = []
    /// One entry per user message in the history, in order: the settings it was sent with;
    /// `nil` for a turn that came from a script (`/open`).
    var turnSettings: [TurnSettings?] = []
    /// The last reply's summary, for `/stats`.
    var lastSummary: ReplySummary?
    /// Whether a thinking model's reasoning is shown (`/set reasoning show|hide`).
    var showsReasoning = true
    /// Where hook calls are traced (`/trace on`, `--trace-hooks`); `nil` for no trace.
    var tracing: ChatTrace? {
        didSet { session.hookTrace = tracing?.trace }
    }

    /// A trace of hook calls: into the chat, or into a JSON Lines file.
    struct ChatTrace {
        var trace: any HookTrace
        /// The file, for a trace written to one.
        var file: HookTraceFile?
    }

    /// A plugin instance and the spec it came from.
    struct ActivePlugin {
        var spec: PluginSpec
        var plugin: LuaPlugin
    }

    /// Loads the plugins (so a mistake in one is reported before the model loads), then the model.
    public init(configuration: ChatConfiguration, models: any ModelProvider,
                output: @escaping @Sendable (ChatEvent) -> Void) throws {
        self.configuration = configuration
        self.models = models
        self.output = output
        setup = configuration.setup
        plugins = try configuration.plugins.map { text in
            try Self.loadPlugin(PluginSpec(parsing: text), maker: configuration.maker, output: output)
        }
        model = try models.model(for: setup)
        systemPromptChosen = configuration.systemPrompt != nil
        session = try Self.session(on: model, setup: setup, plugins: plugins, configuration: configuration,
                                   parameters: configuration.parameters,
                                   history: [].replacingSystemPrompt(configuration.systemPrompt ?? model.defaultSystemPrompt))
        if let trace = configuration.trace { try startTrace(to: trace == "-" ? nil : trace) }
    }

    /// A session on `model` holding `history`, with the chat's plugins (refused if the model
    /// cannot run them) and policies.
    static func session(on model: any ChatModel, setup: ModelSetup, plugins: [ActivePlugin], configuration: ChatConfiguration,
                        parameters: GenerationParameters, history: [ChatMessage]) throws -> ChatSession {
        let backend = try model.makeBackend(setup)
        try backend.checkSupport(of: plugins.map(\.plugin))
        let session = ChatSession(backend: backend, parameters: parameters, hooks: plugins.map(\.plugin), toolProviders: configuration.toolProviders,
                                  hookErrorPolicy: configuration.hookErrorPolicy, overflowPolicy: configuration.overflow)
        session.history = history
        session.recorder = configuration.log.map { ConversationLog(database: $0, source: .chat, model: setup.lastingModelName) }
        session.toolApproval = configuration.toolApproval
        // `/stats` shows what each plugin's calls spent.
        session.countsInstructions = true
        return session
    }

    /// The conversation so far.
    public var history: [ChatMessage] { session.history }

    /// The parameters of the next reply.
    public var parameters: GenerationParameters { session.parameters }

    /// The names of the plugins loaded, in hook order.
    public var pluginNames: [String] { plugins.map(\.plugin.name) }

    /// The last reply's summary.
    public var lastReply: ReplySummary? { lastSummary }

    /// What the banner says: the model, its context, the plugins, the MCP servers.
    public var banner: String {
        let description = session.backend.modelDescription
        return "\(URL(fileURLWithPath: setup.model).lastPathComponent) · context \(description.contextSize) tokens · plugins: "
            + Self.list(pluginNames)
            + (configuration.toolProviders.isEmpty ? "" : " · tools from " + configuration.toolProviders.map(\.name).joined(separator: ", "))
    }

    /// The names Tab can complete.
    public var completionVocabulary: TabCompletion.Vocabulary {
        TabCompletion.Vocabulary(availablePlugins: configuration.locator.pluginNames(), loadedPlugins: pluginNames,
                                 models: ModelRegistry.entries.map(\.id))
    }

    /// Handles one input: a command if it starts with `/` (`//` sends a message starting with
    /// `/`), else a message the model answers. Blank input does nothing.
    public func handle(_ input: String) async -> ChatOutcome {
        let text = input.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return .proceed }
        if text.hasPrefix("//") {
            await ask(String(input.drop { $0 != "/" }.dropFirst()))
            return .proceed
        }
        guard text.hasPrefix("/") else {
            await ask(input)
            return .proceed
        }
        do {
            return try await run(SlashCommand(parsing: text))
        } catch {
            output(.problem(Remedy.describe(error, naming: configuration.remedyName)))
            return .proceed
        }
    }

    /// Streams the reply to `message` and records how it ended.
    /// Sends `message` and shows the reply; for a script's turn `step` (`/open`), answers it as
    /// `tide run` does (the results of the tool calls written after it, when there are some).
    func ask(_ message: String, step: ReplyStep? = nil) async {
        let session = self.session
        let assistantCount = history.count { $0.role == .assistant }
        let userCount = history.count { $0.role == .user }
        turnSettings = Array(turnSettings.prefix(userCount)) + Array(repeating: nil, count: max(0, userCount - turnSettings.count))
            + [currentSettings]
        var record: ReplyRecord?
        var stopReason: StopReason?
        var formatProblem: String?
        var failures: [String] = []
        // Whether reasoning shown left its line open: the answer then starts on a new one.
        var reasoningLineOpen = false
        do {
            try await canceller.whileReplying(in: session) {
                let events = step.map { ScriptInterpreter.reply(to: $0, in: session, forcing: nil) } ?? session.reply(to: message)
                for try await event in events {
                    switch event {
                    case .text(let text):
                        // The answer starts on a line of its own after the reasoning shown.
                        if reasoningLineOpen { output(.replyReasoning("\n")) }
                        reasoningLineOpen = false
                        output(.replyText(text))
                    case .reasoning(let text) where showsReasoning:
                        output(.replyReasoning(text))
                        reasoningLineOpen = !text.hasSuffix("\n")
                    case .reasoning: break
                    case .hookFailure(let failure): failures.append("\(failure) (the plugin is now disabled)")
                    case .rewound(let taken) where tracing != nil:
                        output(.trace("⟲ \(taken.hook) took back \(HookCall.excerpt(taken.text, end: true)) "
                            + "(\(taken.tokens) token\(taken.tokens == 1 ? "" : "s")): its should_stop asked for a rewind"))
                    case .toolCall, .toolCallText, .logprobs, .promptLogprobs, .rewound: break
                    case .toolResult(let result): output(.notice(ToolReport.line(result)))
                    case .finished(let summary):
                        lastSummary = summary
                        stopReason = summary.stopReason
                        formatProblem = summary.format.flatMap { format in
                            format.problem(with: summary.text, stopReason: summary.stopReason).map {
                                "the reply is not in its format (\(format.description)): \($0)"
                            }
                        }
                        if let problem = summary.toolCallProblem { failures.append("the model's tool call was not run: \(problem)") }
                        if summary.stopReason != .cancelled {
                            record = ReplyRecord(stopReason: "\(summary.stopReason)", tokens: summary.statistics.generatedTokens,
                                                 rounds: summary.statistics.toolRounds)
                        }
                    }
                }
            }
            output(.replyEnded(stopReason))
            for failure in failures { output(.problem(failure)) }
            if let formatProblem { output(.problem(formatProblem)) }
            // `/set logprobs K`: the tokens' log-probabilities after the reply.
            if let scored = lastSummary?.logprobs, !scored.isEmpty { output(.notice(scored.table)) }
        } catch {
            output(.replyEnded(nil))
            for failure in failures { output(.problem(failure)) }
            output(.problem(Remedy.describe(error, naming: configuration.remedyName)))
        }
        // A reply that failed after showing text is kept, interrupted; one that failed before is not.
        if history.count(where: { $0.role == .assistant }) > assistantCount { records.append(record) }
    }

    /// Traces every hook call from now on: into the chat, one line each, or into the JSON Lines
    /// file at `path`.
    func startTrace(to path: String?) throws {
        guard let path else {
            tracing = ChatTrace(trace: ChatLines(output: output))
            return
        }
        let output = self.output
        let file = try HookTraceFile(path: NSString(string: path).expandingTildeInPath, warn: { output(.problem($0)) })
        tracing = ChatTrace(trace: file.trace(), file: file)
    }

    /// Cuts the history to its first `count` messages (and the reply records with it).
    func truncateHistory(to count: Int) {
        let kept = Array(history.prefix(count))
        session.history = kept
        records = Array(records.prefix(kept.count { $0.role == .assistant }))
        turnSettings = Array(turnSettings.prefix(kept.count { $0.role == .user }))
    }

    /// Where the conversation proper starts: after the system prompt, if there is one.
    var conversationStart: Int { history.first?.role == .system ? 1 : 0 }

    /// Loads a plugin from its spec, logging through the chat.
    func loadPlugin(_ spec: PluginSpec) throws -> ActivePlugin {
        try Self.loadPlugin(spec, maker: configuration.maker, output: output)
    }

    private static func loadPlugin(_ spec: PluginSpec, maker: PluginMaker, output: @escaping @Sendable (ChatEvent) -> Void) throws -> ActivePlugin {
        ActivePlugin(spec: spec, plugin: try maker.plugin(spec, log: { output(.notice($0)) }))
    }

    /// Makes `plugins` the session's hooks.
    func install(_ plugins: [ActivePlugin]) {
        self.plugins = plugins
        session.hooks = plugins.map(\.plugin)
        // Tools chosen by name stay chosen while a plugin or a server declares them.
        let declared = Set(session.allToolProviders.flatMap(\.tools).map(\.name))
        session.parameters.toolNames = session.parameters.toolNames?.filter(declared.contains)
    }
}

/// A trace of hook calls drawn in the chat: a line each (``HookCall/line``).
private struct ChatLines: HookTrace {
    let output: @Sendable (ChatEvent) -> Void

    func record(_ call: HookCall) { output(.trace(call.line)) }
}
