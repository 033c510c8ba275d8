import Foundation
import Testing
import TideTestSupport

/// `tide` run as an installed command: from another folder, with input piped in, with output
/// read by programs.
extension CommandLineTests {
    @Suite struct AnywhereTests {
        /// A folder with no Plugins/ and no scripts in it, and a config folder of its own.
        func elsewhere() throws -> (folder: URL, environment: [String: String]) {
            let folder = try CommandLineTests.scratchFolder("elsewhere")
            let config = folder.appendingPathComponent("config")
            return (folder, ["XDG_CONFIG_HOME": config.path])
        }

        @Test func theShippedPluginsWorkFromAnyFolder() throws {
            let (folder, environment) = try elsewhere()
            let stopped = try TideProcess.run(["generate", "--temperature", "0", "--stats",
                                               "--plugin", "stop-after-sentences sentences=1", "Describe the sea."],
                                              environment: environment, workingDirectory: folder)
            #expect(stopped.status == 0, "\(stopped.stderr)")
            #expect(stopped.stderr.contains("stop: plugin:stop-after-sentences: 1 sentence"))

            let list = try TideProcess.run(["plugins", "list"], environment: environment, workingDirectory: folder)
            #expect(list.stdout.contains("stop-after-sentences 1.0  Stop once the reply has N sentences.\n"
                + "    options: sentences=2\n    hooks: should_stop\n    from: shipped with tide\n"), "\(list.stdout)")

            // A plugin of the user's of the same name comes first, and the listing says what it hides.
            let mine = URL(fileURLWithPath: environment["XDG_CONFIG_HOME"]!).appendingPathComponent("tide/plugins")
            try FileManager.default.createDirectory(at: mine, withIntermediateDirectories: true)
            try "return { name = 'stop-after-sentences', version = '9.9', description = 'Mine.', options = { n = 1 } }"
                .write(to: mine.appendingPathComponent("stop-after-sentences.lua"), atomically: true, encoding: .utf8)
            let json = try TideProcess.run(["plugins", "list", "--json"], environment: environment, workingDirectory: folder)
            let listed = json.stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(listed.count == json.stdout.split(separator: "\n").count && listed.count >= 12)
            let overridden = try #require(listed.first { $0["name"] as? String == "stop-after-sentences" })
            #expect(overridden["version"] as? String == "9.9")
            #expect(overridden["origin"] as? String == "file")
            #expect(overridden["overrides"] as? [String] == ["shipped with tide"])
            #expect(overridden["options"] as? [String: Int] == ["n": 1])
            #expect(listed.filter { $0["name"] as? String == "stop-after-sentences" }.count == 1)
        }

        @Test func generateReadsStandardInputAndPrintsJSON() throws {
            let alone = try TideProcess.run(["generate", "--temperature", "0", "--max-tokens", "12", "--plugin", ScratchPlugins.capitalsFile],
                                            stdin: "What is the capital of France?")
            #expect(alone.status == 0 && alone.stdout == "The capital of France is Paris.\n", "\(alone.stderr)")

            func json(_ arguments: [String], stdin: String? = nil) throws -> [String: Any] {
                let result = try TideProcess.run(["generate", "--json", "--temperature", "0", "--max-tokens", "5"] + arguments,
                                                 stdin: stdin)
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stdout.hasSuffix("}\n") && result.stdout.split(separator: "\n").count == 1)
                return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            }
            let bare = try json(["Summarise:"])
            let notes = "Tides rise and fall twice a day because of the Moon's pull on the oceans."
            let withContext = try json(["Summarise:"], stdin: notes)
            let usage = try #require(withContext["usage"] as? [String: Int])
            let bareUsage = try #require(bare["usage"] as? [String: Int])
            #expect(usage["prompt_tokens"]! >= bareUsage["prompt_tokens"]! + 15, "the piped notes are part of the prompt")
            let end = PrintedEnd(tokens: usage["completion_tokens"] ?? -1, stop: withContext["stop_reason"] as? String ?? "")
            #expect(end.isWithin(5), "\(end)")
            #expect(withContext["model"] as? String == "smollm2-135m-instruct")
            #expect((withContext["text"] as? String)?.isEmpty == false)
            let timings = try #require(withContext["timings"] as? [String: Double])
            #expect(timings["time_to_first_token"]! > 0 && timings["time_to_first_token"]! < 60, "seconds")
            #expect((withContext["parameters"] as? [String: Any])?["temperature"] as? Double == 0)

            let nothing = try TideProcess.run(["generate"], stdin: "")
            #expect(nothing.status == 2 && nothing.stderr.contains("the prompt is empty"))
        }

        @Test func runReadsAScriptFromStandardInput() throws {
            let script = "@temperature 0\n@max-tokens 16\n@plugin \(ScratchPlugins.capitalsFile)\n"
                + "user: What is the capital of France?\nexpect: contains \"Paris\"\n"
            let result = try TideProcess.run(["run", "--json", "-"], stdin: script)
            #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
            let object = try #require(result.jsonCases.first)
            #expect(object["file"] as? String == "<stdin>")
            #expect(object["model"] as? String == "smollm2-135m-instruct")
            let reply = try #require((object["replies"] as? [[String: Any]])?.first)
            #expect((reply["parameters"] as? [String: Any])?["max_tokens"] as? Int == 16)

            let broken = try TideProcess.run(["run", "-"], stdin: "@temperature hot\nuser: Hi\n")
            #expect(broken.status == 2 && broken.stdout.contains("<stdin>:1:14: @temperature must be ≥ 0"), "\(broken.stdout)")
            let refused = try TideProcess.run(["run", "--out", "/tmp", "-"], stdin: script)
            #expect(refused.status == 2 && refused.stderr.contains("save it to a file for --out"))
        }

        @Test func versionAndManual() throws {
            let version = try TideProcess.run(["version"])
            let flag = try TideProcess.run(["--version"])
            #expect(version.status == 0 && !version.stdout.isEmpty && version.stdout == flag.stdout)
            let manual = try TideProcess.run(["manual"])
            #expect(manual.stdout.hasPrefix(".TH TIDE 1 "))
            for command in ["chat", "generate", "run", "serve", "models", "plugins", "bench"] {
                #expect(manual.stdout.contains(".SS tide \(command)\n"), "\(command)")
            }
            #expect(!manual.stdout.contains(".SS tide manual"))
            #expect(manual.stdout.contains("--dry-multiplier <number>"), "the generation parameters' help is in the page")
            let completion = try TideProcess.run(["--generate-completion-script", "bash"])
            #expect(completion.status == 0 && completion.stdout.contains("generate") && completion.stdout.contains("--max-rewinds"))
        }
    }
}
