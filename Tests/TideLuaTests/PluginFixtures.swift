import Foundation
import TideCore
import TideLlama
import TideLua
import TideModels
import TideTestSupport

/// Writes plugin sources to a scratch folder and loads them, and gives sessions on the real model.
enum PluginFixtures {
    static let model: LlamaModel = {
        let entry = ModelRegistry.entry(named: ModelRegistry.defaultModelID)!
        do {
            return try LlamaModel.load(path: ModelStore.standard.path(for: entry).path)
        } catch {
            fatalError("the bundled model must be installed for these tests (run `make test`): \(error)")
        }
    }()

    static let limits = LuaLimits(instructions: 2_000_000, memoryBytes: 16 << 20, time: .seconds(2))

    /// Loads `source` as a plugin file called `name`.lua with the given spec options.
    static func plugin(_ name: String, _ source: String, options: String = "", limits: LuaLimits = limits,
                       log: @escaping @Sendable (String) -> Void = { _ in }) throws -> LuaPlugin
    {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tide-plugins-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try source.write(to: folder.appendingPathComponent("\(name).lua"), atomically: true, encoding: .utf8)
        return try LuaPlugin(spec: PluginSpec(parsing: "\(name) \(options)"),
                             locator: PluginLocator(directories: [folder]), limits: limits, log: log)
    }

    /// The capitals plugin (``ScratchPlugins/capitals``): "The capital of France is Paris." to a
    /// question about France, on any machine (or `text`, to every message).
    static func capitals(text: String? = nil) throws -> LuaPlugin {
        try plugin("capitals", ScratchPlugins.capitals, options: text.map { "text='\($0)'" } ?? "")
    }

    /// A greedy session on the bundled model with `plugins`.
    static func session(_ plugins: [any ChatHook], policy: HookErrorPolicy = .disableHook, maxTokens: Int = 48)
        throws -> ChatSession
    {
        var parameters = GenerationParameters()
        parameters.temperature = 0
        parameters.maxTokens = maxTokens
        return ChatSession(backend: try LlamaBackend(model: model, options: LlamaContextOptions(contextSize: 1024, machine: .underTest)),
                           systemPrompt: "You are a helpful assistant.", parameters: parameters, hooks: plugins,
                           hookErrorPolicy: policy)
    }
}
