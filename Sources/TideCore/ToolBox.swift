/// The tools a session's enabled hooks offer, by name, and the running of a call: bounded in
/// what it returns, and never an error for the turn — a failure is a result that says why.
struct ToolBox {
    /// The most bytes of a result the model is given; a longer one is cut, and says so.
    static let maximumResultBytes = 16_384

    private(set) var definitions: [ToolDefinition] = []
    private var owners: [String: any ChatHook] = [:]

    /// The tools of `hooks` (disabled ones left out); a name two hooks declare is refused.
    init(hooks: [any ChatHook], disabled: Set<ObjectIdentifier>) throws(ToolClash) {
        for hook in hooks where !disabled.contains(ObjectIdentifier(hook)) {
            for tool in hook.tools {
                if let owner = owners[tool.name] { throw ToolClash(tool: tool.name, first: owner.name, second: hook.name) }
                owners[tool.name] = hook
                definitions.append(tool)
            }
        }
    }

    /// Whether a hook runs `name` (else it is the caller's, such as a server's client's).
    func runs(_ name: String) -> Bool { owners[name] != nil }

    /// Runs `call` on the hook that declared its tool.
    func run(_ call: ToolCall) -> ToolResult {
        let start = ContinuousClock.now
        guard let owner = owners[call.name] else {
            let known = definitions.map(\.name).joined(separator: ", ")
            return ToolResult(call: call, content: "error: there is no tool \(call.name); the tools are \(known)", failed: true,
                              duration: .zero)
        }
        let (content, failed): (String, Bool)
        do {
            (content, failed) = (try owner.runTool(call), false)
        } catch {
            (content, failed) = ("error: \(error)", true)
        }
        return ToolResult(call: call, content: Self.bounded(content), failed: failed, duration: ContinuousClock.now - start)
    }

    /// `content` cut to ``maximumResultBytes`` (at a character's end), with a note of the cut.
    static func bounded(_ content: String) -> String {
        guard content.utf8.count > maximumResultBytes else { return content }
        var kept = ""
        for character in content {
            if kept.utf8.count + character.utf8.count > maximumResultBytes { break }
            kept.append(character)
        }
        return kept + "\n[the result was cut: \(content.utf8.count) bytes, of which the first \(kept.utf8.count) are shown]"
    }
}

/// Two hooks declaring a tool of the same name.
public struct ToolClash: Error, Sendable, Hashable, CustomStringConvertible {
    /// The tool's name.
    public let tool: String
    /// The hooks (plugins) that declare it.
    public let first: String, second: String

    public var description: String {
        "the plugins \(first) and \(second) both declare a tool named \(tool); load one of them, or rename one's tool"
    }
}

extension ToolBox {
    /// Whether every one of `calls` names a tool a hook runs.
    func runsAll(_ calls: [ToolCall]) -> Bool { calls.allSatisfy { runs($0.name) } }
}
