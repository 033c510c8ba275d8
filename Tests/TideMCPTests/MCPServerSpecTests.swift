import Testing
import TideMCP

/// `--mcp` values: a name and a command, the names tools are offered under, and what is refused.
struct MCPServerSpecTests {
    @Test(arguments: [
        ("mcp-server-time --local-timezone UTC", "time", ["mcp-server-time", "--local-timezone", "UTC"]),
        ("clock: mcp-server-time", "clock", ["mcp-server-time"]),
        ("uvx mcp-server-git --repository .", "git", ["uvx", "mcp-server-git", "--repository", "."]),
        ("python3 'my servers/weather_mcp.py'", "weather-mcp", ["python3", "my servers/weather_mcp.py"]),
        ("/opt/bin/files-mcp /srv", "files", ["/opt/bin/files-mcp", "/srv"]),
    ])
    func aServerIsNamedAfterItsCommandUnlessNamed(text: String, name: String, command: [String]) throws {
        let spec = try MCPServerSpec(parsing: text)
        #expect(spec.name == name)
        #expect(spec.command == command)
        #expect(try MCPServerSpec(parsing: spec.description) == spec)
    }

    @Test func toolsAreOfferedUnderTheServersName() throws {
        let spec = try MCPServerSpec(parsing: "time: mcp-server-time")
        #expect(spec.offeredName(of: "get_current_time") == "time__get_current_time")
        #expect(spec.offeredName(of: "files.read/all") == "time__files_read_all")
    }

    @Test(arguments: [
        ("", "--mcp needs a command"),
        ("web: https://example.org/mcp", "servers over HTTP are not supported"),
        ("a: 'unclosed", "a single quote (') is never closed"),
        ("http://127.0.0.1:8080/mcp", "servers over HTTP are not supported"),
    ])
    func whatCannotRunIsRefused(text: String, message: String) {
        #expect {
            try MCPServerSpec(parsing: text)
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test func twoServersOfOneNameAreRefusedBeforeEitherStarts() async throws {
        let specs = [try MCPServerSpec(parsing: "mcp-server-time"), try MCPServerSpec(parsing: "time: /bin/false")]
        await #expect {
            try await MCPServers.start(specs)
        } throws: { error in
            "\(error)".contains("two MCP servers are named time")
        }
    }
}
