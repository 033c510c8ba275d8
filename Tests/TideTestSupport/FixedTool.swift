import TideCore

/// A hook with one tool, `add`, that always gives `5`: for tests of how calls travel, not of
/// what a tool computes.
public final class FixedTool: ChatHook, ToolProvider, Sendable {
    public let name = "adder"
    public let points: Set<HookPoint> = []

    public init() {}

    public var tools: [ToolDefinition] { [ToolDefinition(name: "add", description: "Add.", parameters: #"{"type": "object"}"#)] }

    public func runTool(_ call: ToolCall) throws -> String { "5" }
}
