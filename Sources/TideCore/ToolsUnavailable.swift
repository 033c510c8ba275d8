/// Why tools cannot be offered in a reply.
public enum ToolsUnavailable: Error, Sendable, Hashable, CustomStringConvertible {
    /// The backend has no way to offer tools (a model on a server, for now).
    case backend
    /// A reply format was asked for too.
    case withFormat
    /// A call was required (of any tool, or of a named one), but no tools are offered.
    case none(ToolChoice)
    /// The calls of the tools offered cannot be enforced (their schemas together make a grammar
    /// too large, or one the sampler refuses): why.
    case unenforceable(String)

    public var description: String {
        switch self {
        case .backend:
            "this model cannot be offered tools here (tools need a local model); leave the tools out (tool choice none)"
        case .none(let choice):
            "the tool choice is \(choice), but no tools are offered; load a plugin with tools (tide plugins list shows them)"
        case .unenforceable(let why):
            "the tools cannot be offered: \(why); offer fewer tools, or simpler schemas"
        case .withFormat:
            "tools and a reply format cannot be combined: a reply is either tool calls or the format; "
                + "set the tool choice to none to keep the format, or drop the format"
        }
    }
}

extension ToolsUnavailable {
    /// Refuses tools `parameters` cannot have on `backend`: a call required with no tools offered,
    /// tools on a backend that cannot offer them, tools with a reply format.
    static func check(_ parameters: GenerationParameters, on backend: any ChatBackend) throws(ToolsUnavailable) {
        if parameters.tools.isEmpty, ![.auto, .none].contains(parameters.toolChoice) { throw .none(parameters.toolChoice) }
        guard parameters.offersTools else { return }
        guard backend.toolCallReader != nil || backend.offersToolsItself else { throw .backend }
        try checkFormat(parameters)
    }

    /// Refuses tools offered with a reply format, whatever the backend: a request can be told
    /// so before any work (`tide serve` does).
    public static func checkFormat(_ parameters: GenerationParameters) throws(ToolsUnavailable) {
        if parameters.offersTools, parameters.format != nil { throw .withFormat }
    }
}
