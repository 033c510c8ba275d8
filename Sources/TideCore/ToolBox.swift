/// The tools a session's providers offer (its enabled hooks that are providers, and the others it
/// was given), by name, and the running of a call: bounded in what it returns, and never an error
/// for the turn — a failure is a result that says why.
struct ToolBox {
    private(set) var definitions: [ToolDefinition] = []
    private var owners: [String: any ToolProvider] = [:]

    /// No tools: those of the turn are the caller's.
    init() {}

    /// The tools of `providers` (disabled ones left out), only those `names` lists when it is not
    /// `nil`; a name two providers declare, and a name listed that none declares, are refused.
    init(providers: [any ToolProvider], disabled: Set<ObjectIdentifier>, names: [String]? = nil) throws(ToolSelectionError) {
        for provider in providers where !disabled.contains(ObjectIdentifier(provider)) {
            for tool in provider.tools {
                if let owner = owners[tool.name] { throw .clash(ToolClash(tool: tool.name, first: owner.name, second: provider.name)) }
                owners[tool.name] = provider
                definitions.append(tool)
            }
        }
        guard let names else { return }
        if let unknown = names.first(where: { owners[$0] == nil }) {
            throw .unknown(unknown, known: definitions.map(\.name))
        }
        definitions = definitions.filter { names.contains($0.name) }
        owners = owners.filter { names.contains($0.key) }
    }

    /// Whether a provider runs `name` (else it is the caller's, such as a server's client's).
    func runs(_ name: String) -> Bool { owners[name] != nil }

    /// What runs the tool `name`: its provider's name (a plugin's, or `mcp:SERVER`), or `client`
    /// for a tool no provider runs (a server's client's).
    func provider(of name: String) -> String { owners[name]?.name ?? "client" }

    /// Runs `call` on the provider that declared its tool; its result is whole, for
    /// ``fitting(_:after:parameters:backend:)`` to cut.
    func run(_ call: ToolCall) async -> ToolResult {
        let start = ContinuousClock.now
        guard let owner = owners[call.name] else {
            let known = definitions.map(\.name).joined(separator: ", ")
            return ToolResult(call: call, content: "error: there is no tool \(call.name); the tools are \(known)", failed: true,
                              duration: .zero)
        }
        let (content, failed): (String, Bool)
        do {
            (content, failed) = (try await owner.runTool(call), false)
        } catch {
            (content, failed) = ("error: \(error)", true)
        }
        return ToolResult(call: call, content: content, failed: failed, duration: ContinuousClock.now - start)
    }
}

/// Two providers declaring a tool of the same name.
public struct ToolClash: Error, Sendable, Hashable, CustomStringConvertible {
    /// The tool's name.
    public let tool: String
    /// The providers (plugins, MCP servers) that declare it.
    public let first: String, second: String

    public var description: String {
        "the plugins \(first) and \(second) both declare a tool named \(tool); load one of them, or rename one's tool"
    }
}

extension ToolBox {
    /// Whether every one of `calls` names a tool a hook runs.
    func runsAll(_ calls: [ToolCall]) -> Bool { calls.allSatisfy { runs($0.name) } }
}

/// Why the tools of a turn could not be chosen.
public enum ToolSelectionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Two plugins declare one tool name.
    case clash(ToolClash)
    /// A tool asked for (`--tool`) that no loaded plugin declares, with the tools there are.
    case unknown(String, known: [String])

    public var description: String {
        switch self {
        case .clash(let clash): clash.description
        case .unknown(let name, let known):
            "no loaded plugin or MCP server has a tool named \(name); "
                + (known.isEmpty ? "no plugin with tools is loaded (tide plugins list shows their tools)" : "the tools are \(known.joined(separator: ", "))")
        }
    }
}
