import Foundation
import MCP
import Synchronization
import TideCore
import TideFormat

/// A running MCP server: started as Tide's child, initialized, its tools listed, and its calls
/// bounded by ``MCPTimeouts``. A server that exits or sends what cannot be read fails its
/// calls at once with why; one that does not answer in time fails that call.
public final class MCPConnection: Sendable {
    /// The server as `--mcp` named it.
    public let spec: MCPServerSpec
    /// Its tools, under the names Tide offers them by.
    public let tools: [MCPTool]
    /// The tools left out, each with why: a schema Tide cannot hold a call to
    /// (`docs/structured-output.md`), which would make every turn that offers it fail.
    public let leftOut: [String]
    private let client: Client
    private let transport: ChildProcessTransport
    private let ended: ConnectionEnd
    private let timeouts: MCPTimeouts

    private init(spec: MCPServerSpec, tools: [MCPTool], leftOut: [String], client: Client, transport: ChildProcessTransport,
                 ended: ConnectionEnd, timeouts: MCPTimeouts) {
        self.spec = spec
        self.tools = tools
        self.leftOut = leftOut
        self.client = client
        self.transport = transport
        self.ended = ended
        self.timeouts = timeouts
    }

    /// Starts the server `spec` names, initializes it and lists its tools, all within
    /// `timeouts.start`; a server that cannot is ended, and the error says why.
    public static func start(_ spec: MCPServerSpec, timeouts: MCPTimeouts = MCPTimeouts()) async throws -> MCPConnection {
        let ended = ConnectionEnd()
        let client = Client(name: "tide", version: tideVersion)
        let transport = ChildProcessTransport(command: spec.command, serverName: spec.name) { failure in
            ended.record(failure)
            // Pending requests end with the connection, rather than wait for an answer that cannot come.
            Task { await client.disconnect() }
        }
        let seconds = Int(timeouts.start.components.seconds)
        do {
            let (tools, leftOut) = try await withDeadline(timeouts.start, timeout: {
                MCPServerFailure(server: spec.name, message: "did not start and list its tools within \(seconds) s (--mcp-timeout)")
            }) {
                try await client.connect(transport: transport)
                return try await listTools(of: client, spec: spec)
            }
            return MCPConnection(spec: spec, tools: tools, leftOut: leftOut, client: client, transport: transport, ended: ended,
                                 timeouts: timeouts)
        } catch {
            // Why it failed, before ending it adds a reason of its own.
            let reason = error as? MCPServerFailure ?? ended.reason
            await client.disconnect()
            await transport.disconnect()
            throw reason ?? MCPServerFailure(server: spec.name, message: "could not be initialized: \(error)")
        }
    }

    /// Every page of the server's tools (at most 100 pages), named for Tide, and those left out.
    private static func listTools(of client: Client, spec: MCPServerSpec) async throws -> (tools: [MCPTool], leftOut: [String]) {
        var tools: [MCPTool] = []
        var leftOut: [String] = []
        var cursor: String?
        // Keys in one order, so that the prompt that lists the tools is the same every time.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for _ in 0..<100 {
            let page = try await client.listTools(cursor: cursor)
            for tool in page.tools {
                let schema = String(decoding: try encoder.encode(tool.inputSchema), as: UTF8.self)
                let offered = spec.offeredName(of: tool.name)
                if let problem = ToolDefinition.problem(withName: offered) {
                    throw MCPServerFailure(server: spec.name, message: "has a tool Tide cannot offer: \(problem); give the server a shorter name")
                }
                if tools.contains(where: { $0.definition.name == offered }) {
                    throw MCPServerFailure(server: spec.name, message: "has two tools that Tide would both offer as \(offered)")
                }
                let definition = ToolDefinition(name: offered, description: tool.description ?? tool.title ?? "", parameters: schema)
                if let problem = offeringProblem(definition) {
                    leftOut.append("\(offered): \(problem)")
                    continue
                }
                tools.append(MCPTool(definition: definition, serverName: tool.name))
            }
            guard let next = page.nextCursor, !next.isEmpty else { return (tools, leftOut) }
            cursor = next
        }
        throw MCPServerFailure(server: spec.name, message: "lists its tools over more than 100 pages")
    }

    /// Why a call to `definition` cannot be held to its schema, as a Lua tool's is checked when
    /// its plugin loads; `nil` when it can.
    private static func offeringProblem(_ definition: ToolDefinition) -> String? {
        do {
            if let problem = ToolDefinition.problem(withParameters: try JSONValue(parsing: definition.parameters)) { return problem }
            _ = try HermesToolCalls().callGrammar(for: [definition], choice: .auto, parallel: false)
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// Calls the tool offered as `name` with `arguments` (a JSON object's text): its result as
    /// text and whether it is an error, within `timeouts.call`. Never throws: a call that fails
    /// is an error result that says why, as a Lua tool's is.
    public func call(_ name: String, arguments: String) async -> (content: String, failed: Bool) {
        guard let tool = tools.first(where: { $0.definition.name == name }) else {
            return ("the MCP server \(spec.name) has no tool \(name)", true)
        }
        if let failure = ended.reason { return ("\(failure)", true) }
        let values: [String: Value]?
        do {
            let text = arguments.trimmingCharacters(in: .whitespacesAndNewlines)
            values = text.isEmpty ? nil : try JSONDecoder().decode([String: Value].self, from: Data(text.utf8))
        } catch {
            return ("the arguments are not a JSON object: \(arguments.prefix(200))", true)
        }
        let (client, spec, seconds) = (client, spec, Int(timeouts.call.components.seconds))
        let request: RequestContext<CallTool.Result>
        do {
            request = try await client.callTool(name: tool.serverName, arguments: values)
        } catch {
            return ("\(ended.reason ?? MCPServerFailure(server: spec.name, message: "could not be sent the call: \(error)"))", true)
        }
        do {
            let result = try await withDeadline(timeouts.call, timeout: {
                MCPServerFailure(server: spec.name, message: "did not answer \(tool.serverName) within \(seconds) s (--mcp-timeout)")
            }) {
                try await request.value
            }
            return (MCPResultText.text(of: result.content, cuts: transport.cuts.take(request.requestID.description)), result.isError ?? false)
        } catch {
            _ = transport.cuts.take(request.requestID.description)
            if let failure = ended.reason { return ("\(failure)", true) }
            // Given up on: the server is told to stop, and a late answer is dropped.
            Task { try? await client.cancelRequest(request.requestID, reason: "Tide stopped waiting: \(error)") }
            return ("\(error)", true)
        }
    }

    /// Ends the connection and the server: its input closed, then terminated, then killed.
    public func close() async {
        await client.disconnect()
        await transport.disconnect()
    }
}

/// A server's tool: how Tide offers it, and its name on the server.
public struct MCPTool: Sendable, Hashable {
    /// The definition the model sees, named `SERVER__TOOL`.
    public var definition: ToolDefinition
    /// The tool's own name, which the server is called with.
    public var serverName: String
}

/// How long an MCP server may take: to start, initialize and list its tools, and to answer a call.
public struct MCPTimeouts: Sendable, Hashable {
    public var start: Duration
    public var call: Duration

    /// Limits; the defaults are 30 s each (`--mcp-timeout`).
    public init(start: Duration = .seconds(30), call: Duration = .seconds(30)) {
        self.start = start
        self.call = call
    }
}

/// Why a connection ended, once it has: the first reason given.
final class ConnectionEnd: Sendable {
    private let failure = Mutex<MCPServerFailure?>(nil)

    func record(_ reason: MCPServerFailure) {
        failure.withLock { $0 = $0 ?? reason }
    }

    var reason: MCPServerFailure? { failure.withLock { $0 } }
}
