import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TideMCP
import TideTestSupport

/// Tool schemas as pydantic writes them — models under `$defs`, used through `#/$defs/NAME` —
/// are offered and called by every way a tool comes to Tide: a Python MCP server's, a client's
/// through `tide serve` (the OpenAI Agents SDK's function tools), a Lua plugin's, and one offered
/// to a server by `--remote`. What is asserted holds for any words the model picks: the calls'
/// shape is the grammar's.
@Suite(.serialized, .enabled(if: MCPTestServers.missing == nil, "\(MCPTestServers.missing ?? "")"))
struct PydanticSchemaTests {
    /// The arguments of `get_weather(location: Location)` as the OpenAI Agents SDK writes a function
    /// tool's whose argument is a pydantic model (strict: no other properties).
    static let weatherParameters = """
        {"$defs": {"Location": {"properties": {"city": {"title": "City", "type": "string"}, "country": {"title": "Country", \
        "type": "string"}}, "required": ["city", "country"], "title": "Location", "type": "object", "additionalProperties": false}}, \
        "properties": {"location": {"$ref": "#/$defs/Location"}}, "required": ["location"], "title": "get_weather_args", \
        "type": "object", "additionalProperties": false}
        """

    /// A Lua plugin whose tool takes a model the same way, and returns the city it was given.
    static let plugin = """
        -- where: a tool whose argument is a model under $defs.
        return {
          name = "where",
          tools = {
            where = {
              description = "Says the city of a place.",
              parameters = {
                type = "object",
                ["$defs"] = { Place = { type = "object", properties = { city = { type = "string", maxLength = 20 } }, required = { "city" } } },
                properties = { place = { ["$ref"] = "#/$defs/Place" } },
                required = { "place" },
              },
              run = function(args) return "city: " .. args.place.city end,
            },
          },
        }
        """

    /// The `tool NAME ARGUMENTS → RESULT` line `tide generate` writes for `name`.
    static func toolLine(_ output: String, _ name: String) -> String? {
        output.split(separator: "\n").map(String.init).first { $0.hasPrefix("tool \(name) ") }
    }

    @Test func aPythonServersModelToolsAreOfferedAndCalled() async throws {
        let server = try await MCPConnection.start(MCPServerSpec(name: "models", command: MCPFixtures.models),
                                                   timeouts: MCPTimeouts(start: .seconds(60), call: .seconds(20)))
        defer { Task { await server.close() } }
        #expect(server.leftOut.isEmpty, "\(server.leftOut)")
        #expect(server.tools.map(\.definition.name) == ["models__weather", "models__plan_trip"])
        #expect(server.tools.allSatisfy { $0.definition.parameters.contains(##""$ref":"#/$defs/"##) })
        let (weather, failed) = await server.call("models__weather", arguments: #"{"location": {"city": "Paris"}, "unit": "fahrenheit"}"#)
        #expect(!failed && weather.contains(#""city":"Paris""#) && weather.contains("fahrenheit"), "\(weather)")

        let tide = try TideCommand(["generate", "--mcp", MCPFixtures.spec("models", MCPFixtures.models), "--tool", "models__plan_trip",
                                    "--tool-choice", "required", "--temperature", "0", "--max-tokens", "160", "Plan a trip."])
        #expect(await tide.wait(upTo: .seconds(300)) == 0, "\(tide.output)")
        // The model's call, held to the referenced models by the grammar, is what the server's pydantic accepts.
        let line = try #require(Self.toolLine(tide.output, "models__plan_trip"), "\(tide.output)")
        #expect(line.contains(#"→ {"stops": ["#), "\(line)")
    }

    @Test func aClientsAndAPluginsModelToolsAreCalledThroughServeAndRemote() async throws {
        let port = LoopbackPort.free()
        let serve = try TideCommand(["serve", "--port", "\(port)"])
        let url = URL(string: "http://127.0.0.1:\(port)")!
        var healthy = false
        for _ in 0..<600 where !healthy {
            healthy = ((try? await URLSession.shared.data(from: url.appendingPathComponent("health")))?.1 as? HTTPURLResponse)?.statusCode == 200
            if !healthy { try await Task.sleep(for: .milliseconds(100)) }
        }
        try #require(healthy, "\(serve.output)")

        let body = #"{"model": "m", "temperature": 0, "max_tokens": 120, "messages": [{"role": "user", "content": "Weather in Paris?"}], "#
            + #""tools": [{"type": "function", "function": {"name": "get_weather", "parameters": \#(Self.weatherParameters)}}], "#
            + #""tool_choice": "required"}"#
        var request = URLRequest(url: url.appendingPathComponent("v1/chat/completions"))
        request.httpMethod = "POST"
        request.httpBody = Data(body.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (data, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(String(decoding: data, as: UTF8.self))")
        let reply = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let message = ((reply?["choices"] as? [[String: Any]])?.first?["message"] as? [String: Any])
        let call = try #require((message?["tool_calls"] as? [[String: Any]])?.first?["function"] as? [String: Any], "\(reply ?? [:])")
        let arguments = try JSONSerialization.jsonObject(with: Data(((call["arguments"] as? String) ?? "").utf8)) as? [String: Any]
        #expect(call["name"] as? String == "get_weather")
        #expect((arguments?["location"] as? [String: Any])?["city"] is String, "\(call)")

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pydantic-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let plugin = folder.appendingPathComponent("where.lua")
        try Self.plugin.write(to: plugin, atomically: true, encoding: .utf8)
        // The plugin's tool, offered to the local model, and to the server's by --remote.
        for remote in [[], ["--remote", url.absoluteString]] {
            let tide = try TideCommand(["generate"] + remote + ["--plugin", plugin.path, "--tool-choice", "required", "--temperature", "0",
                                                               "--max-tokens", "60", "Where?"])
            #expect(await tide.wait(upTo: .seconds(300)) == 0, "\(tide.output)")
            let line = try #require(Self.toolLine(tide.output, "where"), "\(remote): \(tide.output)")
            #expect(line.contains("→ city: "), "\(remote): \(line)")
        }
        kill(serve.pid, SIGTERM)
        _ = await serve.wait(upTo: .seconds(60))
    }
}
