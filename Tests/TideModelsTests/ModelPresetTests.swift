import Foundation
import Testing
import TideCore
import TideModels

/// Presets and the defaults of registry entries: read, written, chained, and refused when wrong.
@Suite struct ModelPresetTests {
    func scratchFile(_ text: String? = nil) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tide-presets-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("models.json")
        if let text { try text.write(to: file, atomically: true, encoding: .utf8) }
        return file
    }

    @Test func presetsChainTheirDefaultsOverTheirModels() throws {
        let file = try scratchFile("""
            {"models": [
              {"name": "terse", "kind": "preset", "from": "smollm2-135m-instruct", "system_prompt": "Be brief.",
               "parameters": {"temperature": 0.5, "stop": "\\n\\n", "seed": 7}, "plugins": ["stop-after-sentences sentences=1"]},
              {"name": "terser", "kind": "preset", "from": "terse", "parameters": {"temperature": 0, "max-tokens": 20},
               "plugins": ["word-budget words=5"]},
              {"name": "box", "kind": "remote", "url": "http://127.0.0.1:9", "system_prompt": "Remote.",
               "parameters": {"top-k": 5}}
            ]}
            """)
        let user = try UserModels(file: file)
        #expect(try user.presets(from: "terser").map(\.name) == ["terser", "terse"])
        let defaults = try user.defaults(for: "terser")
        #expect(defaults.systemPrompt == "Be brief.")
        #expect(defaults.plugins == ["stop-after-sentences sentences=1", "word-budget words=5"])
        let parameters = defaults.generationParameters
        #expect(parameters.temperature == 0 && parameters.maxTokens == 20 && parameters.seed == 7 && parameters.stop == ["\n\n"])
        #expect(parameters.repeatPenalty == 1.1, "the bundled model's own defaults are under the presets'")
        #expect(try user.defaults(for: "box") == ModelDefaults(systemPrompt: "Remote.", parameters: [ParameterSetting("top-k", 5)]))
        #expect(try user.defaults(for: "/some/file.gguf") == ModelDefaults())
        #expect(try user.defaults(for: "smollm2-135m-instruct").parameters == [ParameterSetting("temperature", 0.2), ParameterSetting("repeat-penalty", 1.1)])
    }

    @Test(arguments: [
        (#"{"name": "a", "kind": "preset", "from": "smollm2-135m-instruct", "parameters": {"temprature": 1}}"#,
         "'temprature' is not a generation parameter"),
        (#"{"name": "a", "kind": "preset", "from": "smollm2-135m-instruct", "parameters": {"top-k": 1.5}}"#,
         "top-k must be a whole number"),
        (#"{"name": "a", "kind": "preset", "from": "smollm2-135m-instruct", "parameters": {"temperature": -1}}"#,
         "temperature must be ≥ 0"),
        (#"{"name": "a", "kind": "preset", "from": "smollm2-135m-instruct", "parameters": {"seed": "often"}}"#,
         "seed must be a whole number from 0 to 4294967294, or random"),
        (#"{"name": "a", "kind": "preset", "from": "smollm2-135m-instruct", "plugins": [""]}"#, "a plugin spec is empty"),
        (#"{"name": "a", "kind": "preset", "from": "smollm2-135m-instruct", "gpu_layers": -3}"#,
         "gpu_layers must be -1 (all) or a count ≥ 0, not -3"),
        (#"{"name": "a", "kind": "preset", "from": "smollm2-135m-instruct", "tool_format": "xml"}"#,
         "tool-format must be one of hermes, llama3, phi4-mini, not xml"),
        (#"{"name": "a", "kind": "preset"}"#, "from"),
        (#"{"name": "a", "kind": "modelfile", "from": "x"}"#, "unknown kind 'modelfile'"),
        (#"{"name": "gemma-3-270m", "kind": "preset", "from": "smollm2-135m-instruct"}"#, "is a built-in model's name"),
    ])
    func wrongEntriesSayWhatIsWrong(entry: String, message: String) throws {
        let file = try scratchFile(#"{"models": [\#(entry)]}"#)
        do {
            _ = try UserModels(file: file)
            Issue.record("accepted \(entry)")
        } catch {
            #expect(error.description.contains(message), "\(error)")
            #expect(error.description.hasPrefix(file.path))
        }
    }

    @Test func presetsCarryGPULayersAndTheLastOneSetWins() throws {
        let file = try scratchFile("""
            {"models": [
              {"name": "half", "kind": "preset", "from": "smollm2-135m-instruct", "gpu_layers": 16},
              {"name": "half-terse", "kind": "preset", "from": "half", "system_prompt": "Be brief."},
              {"name": "cpu", "kind": "preset", "from": "half", "gpu_layers": 0}
            ]}
            """)
        let user = try UserModels(file: file)
        #expect(try user.defaults(for: "half").gpuLayers == 16)
        #expect(try user.defaults(for: "half-terse").gpuLayers == 16, "a preset that says nothing keeps its model's")
        #expect(try user.defaults(for: "cpu").gpuLayers == 0)
        #expect(try user.defaults(for: "smollm2-135m-instruct").gpuLayers == nil)
        try UserModels.save(PresetEntry(name: "all", from: "smollm2-135m-instruct", defaults: ModelDefaults(gpuLayers: -1)),
                            replacing: false, in: file)
        #expect(try UserModels(file: file).defaults(for: "all").gpuLayers == -1)
        #expect(try String(contentsOf: file, encoding: .utf8).contains("\"gpu_layers\" : -1"))
    }

    @Test func presetsCarryAToolFormatAndTheLastOneSetWins() throws {
        let file = try scratchFile("""
            {"models": [
              {"name": "llamaish", "kind": "preset", "from": "smollm2-135m-instruct", "tool_format": "llama3"},
              {"name": "llamaish-terse", "kind": "preset", "from": "llamaish", "system_prompt": "Be brief."},
              {"name": "phi", "kind": "preset", "from": "llamaish", "tool_format": "phi4-mini"}
            ]}
            """)
        let user = try UserModels(file: file)
        #expect(try user.defaults(for: "llamaish").toolFormat == .llama3)
        #expect(try user.defaults(for: "llamaish-terse").toolFormat == .llama3, "a preset that says nothing keeps its model's")
        #expect(try user.defaults(for: "phi").toolFormat == .phi4Mini)
        #expect(try user.defaults(for: "smollm2-135m-instruct").toolFormat == nil)
        try UserModels.save(PresetEntry(name: "hermes", from: "phi", defaults: ModelDefaults(toolFormat: .hermes)), replacing: false, in: file)
        #expect(try UserModels(file: file).defaults(for: "hermes").toolFormat == .hermes)
        #expect(try String(contentsOf: file, encoding: .utf8).contains("\"tool_format\" : \"hermes\""))
    }

    @Test func presetsThatLeadBackToThemselvesAreRefused() throws {
        let file = try scratchFile("""
            {"models": [{"name": "a", "kind": "preset", "from": "b"}, {"name": "b", "kind": "preset", "from": "a"}]}
            """)
        let user = try UserModels(file: file)
        #expect(throws: UserModelsError.self) { try user.defaults(for: "a") }
        do {
            _ = try user.presets(from: "a")
        } catch {
            #expect(error.detail.contains("a → b → a lead back to themselves"), "\(error)")
        }
    }

    @Test func savingKeepsTheOtherEntriesAndRemovingTakesOneOut() throws {
        let file = try scratchFile("""
            {"models": [{"name": "box", "kind": "remote", "url": "http://127.0.0.1:9", "api_key_env": "BOX_KEY", "future_field": 3}]}
            """)
        let preset = PresetEntry(name: "terse", from: "smollm2-135m-instruct",
                                 defaults: ModelDefaults(systemPrompt: "Be brief.", parameters: [ParameterSetting("temperature", 0.3), ParameterSetting("seed", nil), ParameterSetting("stop", ["END"])],
                                                         plugins: ["stop-after-sentences sentences=1"]))
        try UserModels.save(preset, replacing: false, in: file)
        let read = try UserModels(file: file)
        #expect(read.entries.map(\.name) == ["box", "terse"])
        guard case .preset(let saved)? = read.entry(named: "TERSE") else { Issue.record("no preset"); return }
        #expect(saved.from == preset.from && saved.defaults.systemPrompt == "Be brief.")
        #expect(Set(saved.defaults.parameters) == Set(preset.defaults.parameters))
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains("\"future_field\" : 3"), "an entry Tide does not change is kept as written")

        #expect(throws: UserModelsError.self) { try UserModels.save(preset, replacing: false, in: file) }
        try UserModels.save(PresetEntry(name: "terse", from: "gemma-3-270m", defaults: ModelDefaults()), replacing: true, in: file)
        #expect(try UserModels(file: file).presets(from: "terse").first?.from == "gemma-3-270m")
        #expect(throws: UserModelsError.self) {
            try UserModels.save(PresetEntry(name: "x/y.gguf", from: "terse", defaults: ModelDefaults()), replacing: false, in: file)
        }

        #expect(try UserModels.remove("terse", from: file))
        #expect(try !UserModels.remove("terse", from: file))
        #expect(try UserModels(file: file).entries.map(\.name) == ["box"])
    }

    @Test func aBrokenRegistryIsNeverWrittenOver() throws {
        let file = try scratchFile("{\"models\": [")
        #expect(throws: UserModelsError.self) {
            try UserModels.save(PresetEntry(name: "a", from: "smollm2-135m-instruct", defaults: ModelDefaults()), replacing: false, in: file)
        }
        #expect(try String(contentsOf: file, encoding: .utf8) == "{\"models\": [")
    }
}
