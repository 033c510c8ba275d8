import ArgumentParser
import Foundation
import TideChat
import TideLog
import TideReports

/// `tide chat`: an interactive chat in the terminal, with plugins loaded.
struct ChatCommand: AsyncParsableCommand, TakesGenerationParameters {
    static let configuration = CommandConfiguration(
        commandName: "chat",
        abstract: "Chat with a model in the terminal, with plugins loaded.",
        discussion: """
            Type a message and press Enter; a line holding only \""" starts and ends a message of \
            several lines. Commands start with / (/help lists them; Tab completes). Ctrl-C stops a \
            reply and keeps what was shown; Ctrl-D leaves. History: $XDG_STATE_HOME/tide/history.

            When standard input or output is not a terminal, every line (or \""" block) is one \
            message, and the chat ends with the input.

            Examples:
              tide chat
              tide chat --temperature 0 --plugin 'stop-after-sentences sentences=2'
              printf 'Hi!\\nWhat is 2+2?\\n' | tide chat --temperature 0
              tide chat --continue            # go on with the last chat (tide logs lists others: --resume ID)
            """
    )

    @OptionGroup var options: ConversationOptions
    @Flag(name: .customLong("approve-tools"),
          help: "Ask before each tool call is run: y runs it; anything else declines it, and the model is told so.")
    var approveTools = false

    func run() async throws {
        let resumed = try options.resumeOptions.conversation(newestFrom: .chat)
        let recipe = try await options.recipe(resuming: resumed)
        var configuration = ChatConfiguration(
            setup: recipe.setup, systemPrompt: options.sessionOptions.system ?? resumed.map { $0.systemPrompt ?? "" },
            parameters: recipe.parameters, plugins: recipe.plugins.map(\.text), limits: options.pluginOptions.limits,
            hookErrorPolicy: options.pluginOptions.policy, overflow: options.sessionOptions.overflow, remedyName: \.flag)
        configuration.log = options.logOptions.database()
        configuration.trace = options.pluginOptions.traceHooks
        defer { configuration.log?.flush() }
        // The servers end when Tide does (ChildProcesses).
        configuration.toolProviders = try await options.pluginOptions.mcpOptions.start(recipe.mcpServers).tools()
        let view = ChatView()
        let answers = ToolAnswers()
        if approveTools { configuration.toolApproval = { call in answers.approve(call) } }
        let chat = try ChatController(configuration: configuration, models: ProgressBarModels(), output: view.show)
        let editor = LineEditor(historyFile: LineEditor.standardHistoryFile,
                                complete: { TabCompletion(before: $0, vocabulary: chat.completionVocabulary) },
                                list: view.list)
        answers.editor = editor
        // Ctrl-C stops a reply. With none running, it ends a piped chat as usual, and is ignored
        // in an interactive one (a /model loading), which would lose the conversation. While a
        // line is edited, Ctrl-C is a key, not a signal.
        let interrupts = InterruptHandler { [canceller = chat.canceller, interactive = editor != nil] in
            if !canceller.cancel() && !interactive { Foundation.exit(130) }
        }
        defer { interrupts.stop() }
        if editor != nil { view.banner(chat) }
        if let resumed { chat.resume(resumed) }
        if let editor {
            await converse(chat, editor: editor, view: view)
        } else {
            try await answerPipedInput(chat, input: answers)
        }
    }

    /// Reads inputs at a prompt until Ctrl-D or `/quit`.
    private func converse(_ chat: ChatController, editor: LineEditor, view: ChatView) async {
        var input = ChatInput()
        while true {
            switch editor.read(prompt: view.prompt(continuing: input.isInBlock)) {
            case .interrupt:
                Terminal.write("\n")
                input.abandon()
            case .end:
                Terminal.write("\n")
                if let text = input.finish() { _ = await chat.handle(text) }
                return
            case .line(let line):
                editor.remember(line)
                if let text = input.add(line), await chat.handle(text) == .quit { return }
            }
        }
    }

    /// Answers every line (or block) of standard input, then returns. A line or block longer
    /// than ``StandardInput/limit`` ends the chat with an error; what came before it was answered.
    private func answerPipedInput(_ chat: ChatController, input answers: ToolAnswers) async throws {
        var input = ChatInput()
        while let line = try answers.readLine() {
            if let text = input.add(line), await chat.handle(text) == .quit { return }
            if input.pendingBytes > StandardInput.limit { throw StandardInput.TooLong(what: "a block") }
        }
        if let text = input.finish() { _ = await chat.handle(text) }
    }
}
