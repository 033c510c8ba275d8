import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TideTestSupport

/// Nothing an MCP server starts outlives Tide, however it detaches. Each command starts the
/// detaching server (a helper in its session and a daemon forked twice into a session of its
/// own, all three deaf to SIGTERM and SIGHUP), is ended as a user ends it — it finishes, Ctrl-C,
/// SIGTERM — and then ps(1) must list none of the server's processes. And a server starts as
/// any program expects to: no signal blocked, none ignored.
@Suite(.serialized, .enabled(if: MCPTestServers.missing == nil, "\(MCPTestServers.missing ?? "")"))
struct ServerLifetimeTests {
    enum Ending: String, CaseIterable, Sendable {
        /// The command ends by itself.
        case finishing
        /// SIGINT, as Ctrl-C at the terminal sends it.
        case interrupt
        /// SIGTERM.
        case terminate
    }

    /// The processes of the detaching server tagged `marker` that run: the server, its helper, its daemon.
    static func serverProcesses(_ marker: String) -> [(pid: Int32, command: String)] {
        ProcessList.running(holding: marker).filter { process in
            ["detaching_server.py \(marker)", "child-\(marker)", "detached-\(marker)"].contains { process.command.contains($0) }
        }
    }

    /// Waits (up to a minute) for `condition`; whether it came.
    static func waitFor(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<600 where !condition() { try? await Task.sleep(for: .milliseconds(100)) }
        return condition()
    }

    static func temporaryFile(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent(name)
    }

    /// Waits until the server of `marker` has begun the call of `hold`, its three processes running.
    static func waitForHeldCall(_ marker: String) async {
        #expect(await waitFor { FileManager.default.fileExists(atPath: temporaryFile("detaching-hold-\(marker)").path) },
                "the call of hold began")
        #expect(await waitFor { serverProcesses(marker).count == 3 }, "\(serverProcesses(marker))")
    }

    /// Ends `tide` as `ending` says (once it has finished by itself, for `.finishing`) and
    /// expects the server of `marker` to have left nothing running; kills what it left.
    static func end(_ tide: TideCommand, _ ending: Ending, marker: String, command: String) async {
        switch ending {
        case .finishing: break
        case .interrupt: kill(tide.pid, SIGINT)
        case .terminate: kill(tide.pid, SIGTERM)
        }
        let status = await tide.wait(upTo: .seconds(120))
        #expect(status != nil, "tide \(command) ended: \(tide.output)")
        if ending == .finishing {
            #expect(status == 0, "\(tide.output)")
            #expect(FileManager.default.fileExists(atPath: temporaryFile("detaching-started-\(marker)").path), "the daemon detached")
        }
        // SIGKILL is not instant: what was killed may take a moment to go.
        _ = await waitFor { serverProcesses(marker).isEmpty }
        let left = serverProcesses(marker)
        #expect(left.isEmpty, "after tide \(command) ended (\(ending)), still running: \(left.map(\.command))")
        for process in left { kill(process.pid, SIGKILL) }
    }

    @Test(arguments: Ending.allCases)
    func generate(ending: Ending) async throws {
        let marker = UUID().uuidString
        let server = MCPFixtures.spec("det", MCPFixtures.detaching(marker))
        let tide = try TideCommand(ending == .finishing
            ? ["generate", "--mcp", server, "--tool-choice", "none", "--max-tokens", "4", "Hello"]
            : ["generate", "--mcp", server, "--tool", "det__hold", "--tool-choice", "required", "--mcp-timeout", "600",
               "--max-tokens", "60", "Wait."])
        if ending != .finishing { await Self.waitForHeldCall(marker) }
        await Self.end(tide, ending, marker: marker, command: "generate")
    }

    @Test(arguments: Ending.allCases)
    func run(ending: Ending) async throws {
        let marker = UUID().uuidString
        let script = Self.temporaryFile("detaching-\(marker).tide")
        try ("@mcp \(MCPFixtures.spec("det", MCPFixtures.detaching(marker)))\n"
            + (ending == .finishing ? "@tool-choice none\n@max-tokens 4\nuser: Hello\n" : "@tool-choice det__hold\n@max-tokens 60\nuser: Wait.\n"))
            .write(to: script, atomically: true, encoding: .utf8)
        let tide = try TideCommand(["run", "--mcp-timeout", "600", script.path])
        if ending != .finishing { await Self.waitForHeldCall(marker) }
        await Self.end(tide, ending, marker: marker, command: "run")
    }

    @Test(arguments: Ending.allCases)
    func chat(ending: Ending) async throws {
        let marker = UUID().uuidString
        let tide = try TideCommand(["chat", "--mcp", MCPFixtures.spec("det", MCPFixtures.detaching(marker)), "--tool-choice", "none",
                                    "--max-tokens", "4"], keepingInputOpen: true)
        if ending == .finishing {
            tide.write("Hello\n")
            tide.closeInput()
        } else {
            // Once the chat answers, it is past starting: Ctrl-C with no reply running ends it.
            tide.write("/tools\n")
            #expect(await Self.waitFor { tide.output.contains("det__hold") }, "\(tide.output)")
            #expect(await Self.waitFor { Self.serverProcesses(marker).count == 3 }, "\(Self.serverProcesses(marker))")
        }
        await Self.end(tide, ending, marker: marker, command: "chat")
    }

    @Test(arguments: [Ending.interrupt, .terminate])
    func serve(ending: Ending) async throws {
        let marker = UUID().uuidString
        let port = LoopbackPort.free()
        let tide = try TideCommand(["serve", "--port", "\(port)", "--mcp", MCPFixtures.spec("det", MCPFixtures.detaching(marker))])
        let health = URL(string: "http://127.0.0.1:\(port)/health")!
        var healthy = false
        for _ in 0..<600 where !healthy {
            healthy = ((try? await URLSession.shared.data(from: health))?.1 as? HTTPURLResponse)?.statusCode == 200
            if !healthy { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(healthy, "\(tide.output)")
        #expect(await Self.waitFor { Self.serverProcesses(marker).count == 3 }, "\(Self.serverProcesses(marker))")
        await Self.end(tide, ending, marker: marker, command: "serve")
    }

    /// The server's shell reports its own state before it runs the server: Tide ignores SIGPIPE
    /// and its threads block most signals, which a child started carelessly inherits.
    @Test func aServerStartsWithNoSignalBlockedOrIgnored() async throws {
        let report = Self.temporaryFile("signals-\(UUID().uuidString)")
        let shell = MCPFixtures.reportingSignals(to: report, then: MCPTestServers.misbehaving())
        let tide = try TideCommand(["mcp", "list", "--mcp", MCPFixtures.spec("sig", shell)])
        #expect(await tide.wait(upTo: .seconds(120)) == 0, "\(tide.output)")
        let status = try String(contentsOf: report, encoding: .utf8)
        #expect(status.contains("SigBlk:\t0000000000000000"), "\(status)")
        #expect(status.contains("SigIgn:\t0000000000000000"), "\(status)")
    }
}
