import Foundation
import Testing
import TideTestSupport

extension CommandLineTests {
    /// `tide chat` driven through a pseudo-terminal, and with piped input.
    @Suite struct ChatCommandTests {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("tide-chat-state-\(UUID().uuidString)")

        func chat(_ arguments: [String] = [], color: Bool = false) throws -> PseudoTerminal {
            try PseudoTerminal(["chat", "--temperature", "0", "--repeat-penalty", "1", "--max-tokens", "64"] + arguments,
                               environment: ["XDG_STATE_HOME": state.path, "NO_COLOR": color ? nil : "1"],
                               keepingEscapes: color)
        }

        @Test func answersAQuestionAndRunsCommands() throws {
            let terminal = try chat(["--plugin", ScratchPlugins.capitalsFile])
            try terminal.expect("/help for commands")
            try terminal.prompt()
            terminal.type("What is the capital of France?\r")
            #expect(try terminal.prompt().contains("The capital of France is Paris."))
            terminal.type("/sh\t")
            try terminal.expect("/show ")
            terminal.type("\r")
            let shown = try terminal.prompt()
            #expect(shown.contains("conversation: 1 exchange"))
            #expect(shown.contains("parameters: temperature 0 "))
            #expect(shown.contains("runs on: \(GPUMachine.placement ?? "CPU")\n"))
            terminal.type("/set max-tokens 5\r")
            try terminal.expect("max-tokens 5")
            try terminal.prompt()
            terminal.type("/set temperature hot\r")
            try terminal.expect("error: /set temperature: temperature must be ≥ 0")
            try terminal.prompt()
            terminal.type("\"\"\"\rName two colours.\rOne per line.\r\"\"\"\r")
            try terminal.expect("... ")
            try terminal.prompt()
            terminal.type("/stats\r")
            // Five tokens, or fewer where the model ends its reply sooner on this machine.
            let end = try #require(PrintedEnd(try terminal.prompt()))
            #expect(end.isWithin(5), "\(end)")
            terminal.type("/help\r")
            try terminal.expect("/reload [NAME]")
            try terminal.prompt()
            terminal.type("\u{4}")
            #expect(try terminal.waitForExit() == 0)
            let history = try String(contentsOf: state.appendingPathComponent("tide/history"), encoding: .utf8)
            #expect(history.contains("What\\040is\\040the\\040capital\\040of\\040France?"), "libedit's history file: \(history)")
        }

        @Test func ctrlCStopsAReplyAndClearsALine() throws {
            let terminal = try chat(["--max-tokens", "2000", "--plugin", ScratchPlugins.capitalsFile])
            try terminal.prompt()
            terminal.type("Write a very long story about a dragon who learns to sing.\r")
            // Ctrl-C stops a reply once it streams (while the line is edited, it is a key).
            try terminal.expect("sing.\n")
            try terminal.expect(". ")
            terminal.type("\u{3}")
            try terminal.expect("[interrupted]")
            try terminal.prompt()
            terminal.type("half a line\u{3}")
            try terminal.prompt("half a line\n>>> ")
            terminal.type("What is the capital of France?\r")
            #expect(try terminal.prompt().contains("Paris"))
            terminal.type("/show\r")
            try terminal.expect("conversation: 2 exchanges")
            try terminal.prompt()
            terminal.type("/quit\r")
            #expect(try terminal.waitForExit() == 0)
        }

        @Test func reloadReadsAnEditedPluginAndKeepsTheConversation() throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tide-chat-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let plugin = folder.appendingPathComponent("shout.lua")
            func write(_ transform: String) throws {
                try """
                    -- Test plugin: rewrites every token.
                    return { name = "shout", on_token = function(token) return \(transform) end }
                    """.write(to: plugin, atomically: true, encoding: .utf8)
            }
            try write("token.text:upper()")
            let terminal = try chat(["--plugin", ScratchPlugins.capitalsFile, "--plugin", plugin.path])
            try terminal.expect("plugins: capitals, shout")
            try terminal.prompt()
            terminal.type("What is the capital of France?\r")
            #expect(try terminal.prompt().contains("THE CAPITAL OF FRANCE IS PARIS."))
            try write("token.text:lower()")
            terminal.type("/reload\r")
            try terminal.expect("reloaded shout")
            try terminal.prompt()
            terminal.type("What is the capital of Italy?\r")
            // The reply's line, wherever the terminal's echo of the question falls.
            let screen = try terminal.prompt()
            let reply = screen.split(separator: "\n").map(String.init).first { line in
                line.lowercased().contains("italy") && !line.contains("What is the capital of Italy?")
            } ?? screen
            #expect(reply.contains("italy"), "\(screen)")
            #expect(reply == reply.lowercased(), "the edited plugin lowercases: \(reply)")
            terminal.type("/show\r")
            try terminal.expect("conversation: 2 exchanges")
            try terminal.prompt()
            terminal.type("\u{4}")
            #expect(try terminal.waitForExit() == 0)
        }

        @Test func aSavedChatIsAScriptThatTideRunReplays() throws {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("tide-saved-\(UUID().uuidString).tide")
            let terminal = try chat(["--plugin", "stop-after-sentences sentences=1"])
            try terminal.prompt()
            terminal.type("What is the capital of France?\r")
            try terminal.prompt()
            terminal.type("What is the capital of Germany?\r")
            try terminal.prompt()
            terminal.type("/save \(file.path)\r")
            try terminal.expect("saved 2 exchanges")
            try terminal.prompt()
            terminal.type("\u{4}")
            #expect(try terminal.waitForExit() == 0)

            let saved = try String(contentsOf: file, encoding: .utf8)
            #expect(saved.contains("@plugin stop-after-sentences sentences=1"))
            let replies = saved.split(separator: "\n").filter { $0.hasPrefix("assistant: ") }.map { String($0.dropFirst(11)) }
            #expect(replies.count == 2)
            let result = try TideProcess.run(["run", "--json", file.path])
            #expect(result.status == 0, "\(result.stderr)")
            let report = try JSONSerialization.jsonObject(with: Data(result.stdout.split(separator: "\n")[0].utf8)) as? [String: Any]
            let replayed = (report?["replies"] as? [[String: Any]])?.compactMap { $0["reply"] as? String }
            #expect(replayed == replies)
        }

        @Test func pipedInputGetsOneReplyPerLineAndExits() throws {
            let result = try TideProcess.run(["chat", "--temperature", "0", "--max-tokens", "32", "--plugin", ScratchPlugins.capitalsFile],
                                             stdin: "What is the capital of France?\n\"\"\"\nWhat is the capital\nof Italy?\n\"\"\"\nName a colour.\n/show\n")
            #expect(result.status == 0)
            #expect(result.stdout.contains("Paris"))
            #expect(result.stdout.contains("Rome"))
            #expect(result.stdout.contains("conversation: 3 exchanges"))
            #expect(!result.stdout.contains(">>>"), "no prompts when nobody types")
            #expect(!result.stdout.contains("\u{1B}["), "no styles when standard output is not a terminal")
            #expect(result.stderr.isEmpty)
        }

        /// `/tools` lists and chooses the tools; `--approve-tools` asks before each call (here the
        /// piped input's next line answers); `/save` writes the turns' calls and results, and
        /// `tide run` replays them: the first reply, whose tool ran, confirmed by teacher forcing.
        /// Replaying runs the tools again (docs/conversations.md), so the declined call of the
        /// second gets the tool's own result, and its reply is the model's answer to that,
        /// confirmed or generated again as the model's words lead.
        @Test func toolsAreListedChosenApprovedAndSaved() throws {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("tide-tools-\(UUID().uuidString).tide")
            let result = try TideProcess.run(["chat", "--no-log", "--temperature", "0", "--max-tokens", "60", "--plugin", "calculator",
                                              "--tool-choice", "required", "--max-tool-rounds", "1", "--parallel-tool-calls", "false",
                                              "--approve-tools"],
                                             stdin: "/tools\nWhat is 7 times 6?\ny\nAnd 5 times 5?\nno\n/tools disable calculate\n/tools\n"
                                                + "/tools enable all\n/save \(file.path)\n")
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("tools (tool choice required):\n  on  calculate (calculator) — "), "\(result.stdout)")
            #expect(result.stdout.contains("run tool calculate {\"expression\":"), "\(result.stdout)")
            #expect(result.stdout.contains("? [y/N] y\n"), "\(result.stdout)")
            #expect(result.stdout.contains("? [y/N] no\n"), "\(result.stdout)")
            #expect(result.stdout.contains("failed: error: the user declined to run this call"), "\(result.stdout)")
            #expect(result.stdout.contains("no tools are offered\n"), "\(result.stdout)")
            #expect(result.stdout.contains("  off calculate (calculator)"), "\(result.stdout)")
            #expect(result.stdout.contains("offered: calculate\n"), "\(result.stdout)")
            let saved = try String(contentsOf: file, encoding: .utf8)
            #expect(saved.components(separatedBy: "\ntool-call:").count == 3, "\(saved)")
            #expect(saved.contains("tool: error: the user declined to run this call\n"), "\(saved)")
            #expect(saved.components(separatedBy: " rounds=1\n").count == 3, "\(saved)")
            let replay = try TideProcess.run(["run", "--no-log", file.path])
            #expect(replay.status == 0, "\(replay.stdout)\n\(replay.stderr)")
            let verdicts = replay.stdout.split(separator: "\n").filter { $0.contains(": reply ") }
            #expect(verdicts.count == 2, "\(replay.stdout)")
            #expect(verdicts.first?.contains(": reply confirmed by teacher forcing") == true, "\(replay.stdout)")
        }

        @Test func stylesOnlyOnATerminal() throws {
            let terminal = try chat(color: true)
            try terminal.prompt("\u{1B}[1;32m>>>\u{1B}[0m ")
            terminal.type("/undo\r")
            try terminal.expect("\u{1B}[31merror: \u{1B}[0mthere is nothing to undo")
            try terminal.prompt("\u{1B}[1;32m>>>\u{1B}[0m ")
            terminal.type("\u{4}")
            #expect(try terminal.waitForExit() == 0)
            let plain = try PseudoTerminal(["chat"], environment: ["XDG_STATE_HOME": state.path, "NO_COLOR": "1"],
                                           keepingEscapes: true)
            #expect(!(try plain.prompt().contains("\u{1B}["+"1")), "NO_COLOR")
            plain.type("\u{4}")
            #expect(try plain.waitForExit() == 0)
        }

        @Test func badOptionsAreUsageErrors() throws {
            let result = try TideProcess.run(["chat", "--plugin", "no-such-plugin"], stdin: "")
            #expect(result.status == 1)
            #expect(result.stderr.contains("no-such-plugin"))
            let usage = try TideProcess.run(["chat", "--top-k", "x"], stdin: "")
            #expect(usage.status == 2)
        }
    }
}
