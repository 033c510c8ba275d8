import Foundation
import Testing
import TideCore
import TideMCP
import TideTestSupport

/// How much of a server's messages Tide reads and keeps, with the server that writes them without
/// an SDK, as large and as deep as asked: a message nested too deep is a clear error at once, and
/// a result is kept only as far as it can be shown, however large it is, its true size told.
@Suite(.serialized, .enabled(if: MCPTestServers.missing == nil, "\(MCPTestServers.missing ?? "")"))
struct MessageBoundsTests {
    /// Limits far from anything these servers take, so that an error is never the timeout's.
    static let patient = MCPTimeouts(start: .seconds(120), call: .seconds(300))

    func start(_ arguments: [String]) async throws -> MCPConnection {
        try await MCPConnection.start(MCPServerSpec(name: "raw", command: MCPFixtures.raw(arguments)), timeouts: Self.patient)
    }

    /// 600 deep, past the 512 levels the SDK's JSON decoder reads: over 1 MiB, a message the SDK
    /// dropped, leaving Tide waiting until its timeout; under, "not a JSON-RPC message".
    @Test(arguments: [1_100_000, 1000])
    func aToolListNestedTooDeepFailsAtOnceNamingTheLimit(padding: Int) async throws {
        await #expect {
            try await start(["deep", "600", "\(padding)"])
        } throws: { error in
            "\(error)" == "the MCP server raw sent a message that nests arrays and objects deeper than 512 levels, the most Tide reads"
        }
    }

    @Test func aToolListNestedWithinTheLimitIsReadItsDeepToolLeftOut() async throws {
        let server = try await start(["deep", "400", "1100000"])
        defer { Task { await server.close() } }
        #expect(server.tools.map(\.definition.name) == ["raw__big", "raw__big_image", "raw__echo"])
        #expect(server.leftOut.count == 1 && server.leftOut[0].hasPrefix("raw__deep: ")
                && server.leftOut[0].contains("arrays and objects nest deeper than the limit of 256"), "\(server.leftOut)")
    }

    @Test func aResultOf200MiBIsKeptOnlyAsFarAsItCanBeShown() async throws {
        let server = try await start(["big", "200"])
        defer { Task { await server.close() } }
        let kept = GenerationParameters.maximumToolResult
        let (text, failed) = await server.call("raw__big", arguments: "{}")
        let note = "\n[the result was cut: \(200 << 20) bytes, of which the first \(kept) are shown]"
        #expect(!failed && text.hasSuffix(note), "\(text.suffix(200))")
        #expect(text.utf8.count == kept + note.utf8.count && text.utf8.prefix(kept).allSatisfy { $0 == UInt8(ascii: "x") })
        // An image is named with its whole size (base64 holds 3 bytes in 4 characters), not shown.
        let (image, _) = await server.call("raw__big_image", arguments: "{}")
        #expect(image == "[image, image/png, \((200 << 20) * 3 / 4) bytes, not shown]")
        // The server still serves.
        let (echo, _) = await server.call("raw__echo", arguments: #"{"text": "still here"}"#)
        #expect(echo == "still here")
    }

    /// `tide generate --stats`' peak memory, with a call of `tool` of the raw server writing 200 MiB
    /// results: Tide's whole memory, the model's included.
    static func peakMemory(calling tool: String) async throws -> Double? {
        let tide = try TideCommand(["generate", "--mcp", MCPFixtures.spec("raw", MCPFixtures.raw(["big", "200"])), "--tool", tool,
                                    "--tool-choice", "required", "--mcp-timeout", "300", "--max-tokens", "40", "--stats", "Go."])
        #expect(await tide.wait(upTo: .seconds(600)) == 0, "\(tide.output)")
        return tide.output.firstMatch(of: /peak memory: ([0-9.]+) MiB/).flatMap { Double($0.1) }
    }

    @Test func aResultOf200MiBCostsTideNoMoreMemoryThanOneOf16MiB() async throws {
        let baseline = try #require(try await Self.peakMemory(calling: "raw__echo"))
        let big = try #require(try await Self.peakMemory(calling: "raw__big"))
        // The 16 MiB kept, decoded by the SDK, and cut to what the model reads, cost some copies
        // of 16 MiB; the 200 MiB read are not kept at all.
        #expect(big - baseline < 160, "peak memory \(big) MiB with the 200 MiB result, \(baseline) MiB without")
    }
}
