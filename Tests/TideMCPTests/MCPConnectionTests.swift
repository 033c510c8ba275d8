import Foundation
import Testing
import TideCore
import TideMCP
import TideTestSupport

/// Real MCP servers from PyPI, started as Tide starts them: the reference time server, and the
/// tests' own server (written with the official Python SDK) for every way a server can fail.
/// Each failure is an error or a failed result that says why, within its timeout, and no
/// server outlives its connection.
@Suite(.serialized, .enabled(if: MCPTestServers.missing == nil, "\(MCPTestServers.missing ?? "")"))
struct MCPConnectionTests {
    static let short = MCPTimeouts(start: .seconds(20), call: .seconds(3))

    func start(_ command: [String], name: String = "misbehaving", timeouts: MCPTimeouts = short) async throws -> MCPConnection {
        try await MCPConnection.start(MCPServerSpec(name: name, command: command), timeouts: timeouts)
    }

    @Test func theTimeServersToolsAreListedAndCalled() async throws {
        let time = try await start(MCPTestServers.time, name: "time")
        defer { Task { await time.close() } }
        let names = time.tools.map(\.definition.name)
        #expect(names.contains("time__get_current_time") && names.contains("time__convert_time"), "\(names)")
        let current = try #require(time.tools.first { $0.definition.name == "time__get_current_time" })
        #expect(current.serverName == "get_current_time")
        #expect(current.definition.parameters.contains("\"timezone\""))
        let (content, failed) = await time.call("time__get_current_time", arguments: #"{"timezone": "Europe/Paris"}"#)
        #expect(!failed && content.contains("Europe/Paris") && content.contains("datetime"), "\(content)")
        // The server's own error for a bad argument is a failed result the model can read.
        let (bad, badFailed) = await time.call("time__get_current_time", arguments: #"{"timezone": "Mars/Olympus"}"#)
        #expect(badFailed && !bad.isEmpty, "\(bad)")
        let (unparsed, unparsedFailed) = await time.call("time__get_current_time", arguments: "{timezone")
        #expect(unparsedFailed && unparsed.contains("not a JSON object"))
    }

    @Test func aServerThatFailsAtStartSaysWhy() async throws {
        await #expect {
            try await start(MCPTestServers.misbehaving("fail-at-start"))
        } throws: { error in
            let text = "\(error)"
            return text.contains("the MCP server misbehaving exited with status 3") && text.contains("failing at start, as asked")
        }
        await #expect {
            try await start(["/nonexistent/mcp-server"])
        } throws: { error in
            "\(error)".contains("the MCP server misbehaving exited with status 127")
        }
    }

    @Test func aServerThatNeverAnswersIsEndedAtItsDeadline() async throws {
        let marker = UUID().uuidString
        let start = ContinuousClock.now
        await #expect {
            try await self.start(MCPTestServers.misbehaving("silent", marker: marker), timeouts: MCPTimeouts(start: .seconds(2), call: .seconds(2)))
        } throws: { error in
            "\(error)".contains("did not start and list its tools within 2 s")
        }
        #expect(ContinuousClock.now - start < .seconds(15))
        #expect(!MCPTestServers.isRunning(marker: marker), "the silent server was ended")
    }

    @Test func callsThatFailAreResultsThatSayWhy() async throws {
        let server = try await start(MCPTestServers.misbehaving())
        defer { Task { await server.close() } }
        let (sum, sumFailed) = await server.call("misbehaving__add", arguments: #"{"a": 2, "b": 3}"#)
        #expect(!sumFailed && sum == "5")
        let (error, errorFailed) = await server.call("misbehaving__error", arguments: "{}")
        #expect(errorFailed && error.contains("the tool failed, as asked"), "\(error)")
        // A call the server does not answer in time fails; the server still serves the next.
        let (slow, slowFailed) = await server.call("misbehaving__slow", arguments: #"{"seconds": 30}"#)
        #expect(slowFailed && slow.contains("did not answer slow within 3 s"), "\(slow)")
        let (echo, echoFailed) = await server.call("misbehaving__echo", arguments: #"{"text": "still here"}"#)
        #expect(!echoFailed && echo == "still here")
    }

    @Test func aResultOf50MiBArrivesCutToWhatCanBeShown() async throws {
        // The Python SDK takes seconds to write it (twice: as text and as structured content). The
        // tool box cuts what the model reads further (ToolBox.fitting).
        let server = try await start(MCPTestServers.misbehaving(), timeouts: MCPTimeouts(start: .seconds(20), call: .seconds(120)))
        defer { Task { await server.close() } }
        let (big, bigFailed) = await server.call("misbehaving__big", arguments: #"{"mebibytes": 50}"#)
        let kept = GenerationParameters.maximumToolResult
        let note = "\n[the result was cut: \(50 << 20) bytes, of which the first \(kept) are shown]"
        #expect(!bigFailed && big.hasSuffix(note) && big.utf8.count == kept + note.utf8.count, "\(big.suffix(300))")
    }

    @Test func aServerStartsWithNoSignalBlockedOrIgnored() async throws {
        // Its shell reports its state before it runs the server. (These tests' threads block most signals too.)
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("signals-\(UUID().uuidString)")
        let server = try await start(MCPFixtures.reportingSignals(to: report, then: MCPTestServers.misbehaving()))
        defer { Task { await server.close() } }
        let status = try String(contentsOf: report, encoding: .utf8)
        #expect(status.contains("SigBlk:\t0000000000000000") && status.contains("SigIgn:\t0000000000000000"), "\(status)")
    }

    @Test func aServerThatCrashesFailsTheCallAndEveryOneAfter() async throws {
        let server = try await start(MCPTestServers.misbehaving())
        defer { Task { await server.close() } }
        let (crash, crashFailed) = await server.call("misbehaving__crash", arguments: "{}")
        #expect(crashFailed && crash.contains("the MCP server misbehaving exited with status 7"), "\(crash)")
        let (after, afterFailed) = await server.call("misbehaving__echo", arguments: #"{"text": "hello"}"#)
        #expect(afterFailed && after.contains("exited with status 7"), "\(after)")
    }

    @Test func aLineThatIsNotJSONEndsTheConnection() async throws {
        let server = try await start(MCPTestServers.misbehaving())
        defer { Task { await server.close() } }
        let (garbage, failed) = await server.call("misbehaving__garbage", arguments: "{}")
        #expect(failed && garbage.contains("sent a line that is not a JSON-RPC message: \"this is not JSON\""), "\(garbage)")
    }

    /// A server that ends with its input leaves its helper (in its session, deaf to SIGTERM)
    /// behind: closing the connection ends the helper too. (Its daemon, which left the session,
    /// ends with Tide: `ServerLifetimeTests`.)
    @Test func closingAServerEndsTheHelpersItLeaves() async throws {
        let marker = UUID().uuidString
        let server = try await start(MCPFixtures.detaching(marker, polite: true))
        let tagged = { (tag: String) in !ProcessList.running(holding: "\(tag)-\(marker)").isEmpty }
        for _ in 0..<100 where !tagged("detached") { try await Task.sleep(for: .milliseconds(100)) }
        #expect(tagged("child") && tagged("detached"))
        await server.close()
        #expect(!tagged("child"), "the helper ended with its server")
        for process in ProcessList.running(holding: marker) { kill(process.pid, SIGKILL) }
    }

    @Test func aServerThatIgnoresSIGTERMIsKilled() async throws {
        let marker = UUID().uuidString
        let server = try await start(MCPTestServers.misbehaving("stubborn", marker: marker))
        #expect(MCPTestServers.isRunning(marker: marker))
        let start = ContinuousClock.now
        await server.close()
        #expect(ContinuousClock.now - start < .seconds(10))
        #expect(!MCPTestServers.isRunning(marker: marker), "the stubborn server was killed")
    }
}
