import TideModels
import TideScript

/// A model's defaults in words, for `tide models show`, `info` and `list`, and `/show`.
public struct ModelDefaultsText {
    /// The defaults described.
    public let defaults: ModelDefaults

    /// A description of `defaults`.
    public init(_ defaults: ModelDefaults) {
        self.defaults = defaults
    }

    /// One line each for the system prompt, the parameters (as script directives), the plugins,
    /// the MCP servers, the GPU layers, the tool format and the KV cache types.
    public func lines(indent: String, labelWidth: Int) -> [String] {
        func label(_ text: String) -> String { indent + (text + ":").padding(toLength: labelWidth, withPad: " ", startingAt: 0) }
        var lines: [String] = []
        if let prompt = defaults.systemPrompt { lines.append(label("system prompt") + (prompt.isEmpty ? "(none)" : prompt)) }
        if !defaults.parameters.isEmpty {
            lines.append(label("parameters") + defaults.parameters.map { String($0.printed.dropFirst()) }.joined(separator: ", "))
        }
        if !defaults.plugins.isEmpty { lines.append(label("plugins") + defaults.plugins.joined(separator: ", ")) }
        if !defaults.mcp.isEmpty { lines.append(label("mcp servers") + defaults.mcp.joined(separator: ", ")) }
        if let layers = gpuLayers { lines.append(label("gpu layers") + layers) }
        if let format = defaults.toolFormat { lines.append(label("tool format") + format.rawValue) }
        if let types = cacheTypes { lines.append(label("kv cache") + types) }
        return lines
    }

    /// The cache types the defaults set (`k q8_0, v q8_0`); `nil` for none.
    private var cacheTypes: String? {
        let set = [defaults.keyCacheType.map { "k " + $0.rawValue }, defaults.valueCacheType.map { "v " + $0.rawValue }].compactMap { $0 }
        return set.isEmpty ? nil : set.joined(separator: ", ")
    }

    /// The GPU layers the defaults set, as words: `all` or a count.
    private var gpuLayers: String? { defaults.gpuLayers.map { $0 < 0 ? "all" : "\($0)" } }

    /// The parameters and plugins on one line (the system prompt is too long for a table).
    public var summary: String {
        (defaults.parameters.map { String($0.printed.dropFirst()) } + defaults.plugins.map { "plugin " + $0 } + defaults.mcp.map { "mcp " + $0 }
            + (gpuLayers.map { ["gpu layers " + $0] } ?? []) + (defaults.toolFormat.map { ["tool format " + $0.rawValue] } ?? [])
            + (cacheTypes.map { ["kv cache " + $0] } ?? [])
            + (defaults.systemPrompt == nil ? [] : ["system prompt"])).joined(separator: ", ")
    }
}
