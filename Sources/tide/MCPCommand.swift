import ArgumentParser
import TideFormat
import TideMCP

/// `tide mcp list --mcp …`: starts MCP servers and shows the tools each offers, under the names
/// the model sees, without loading a model.
struct MCPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp",
        abstract: "List the tools of MCP servers, as the model is offered them.",
        subcommands: [List.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Start the --mcp servers, list their tools (NAME__TOOL, what each does, its parameters), and end them.")

        @OptionGroup var mcpOptions: MCPOptions

        @Flag(help: "One JSON object per tool: server, name, tool (its name on the server), description, parameters (its JSON schema).")
        var json = false

        func validate() throws {
            if mcpOptions.mcp.isEmpty { throw ValidationError("give the servers to list, e.g. tide mcp list --mcp 'time: mcp-server-time'") }
        }

        func run() async throws {
            let servers: MCPServers
            do {
                servers = try await mcpOptions.start(mcpOptions.settings)
            } catch {
                throw CommandFailure("\(error)")
            }
            for connection in servers.connections {
                if json {
                    for tool in connection.tools {
                        Terminal.write(Self.listing(of: tool, server: connection.spec.name).text + "\n")
                    }
                    continue
                }
                Terminal.write("\(connection.spec)  (\(connection.tools.count) tool\(connection.tools.count == 1 ? "" : "s"))\n")
                for tool in connection.tools {
                    Terminal.write("    \(tool.definition.name)  \(tool.definition.description.split(separator: "\n").first ?? "")\n")
                    let parameters = Self.parameters(of: tool.definition.parameters)
                    if !parameters.isEmpty { Terminal.write("        parameters: \(parameters)\n") }
                }
                for tool in connection.leftOut { Terminal.write("    left out: \(tool)\n") }
            }
            await servers.close()
        }

        /// A tool as `--json` lists it, its keys in order as other `--json` output's.
        static func listing(of tool: MCPTool, server: String) -> JSONValue {
            .object(JSONObject([
                .init(key: "description", value: .string(tool.definition.description)),
                .init(key: "name", value: .string(tool.definition.name)),
                .init(key: "parameters", value: (try? JSONValue(parsing: tool.definition.parameters)) ?? .null),
                .init(key: "server", value: .string(server)),
                .init(key: "tool", value: .string(tool.serverName)),
            ]))
        }

        /// `name (type, required), …` from a JSON schema's properties.
        static func parameters(of schema: String) -> String {
            guard case .object(let object) = try? JSONValue(parsing: schema),
                  case .object(let properties)? = object.members.first(where: { $0.key == "properties" })?.value else { return "" }
            var required: Set<String> = []
            if case .array(let names)? = object.members.first(where: { $0.key == "required" })?.value {
                for case .string(let name) in names { required.insert(name) }
            }
            return properties.members.map { member in
                var notes: [String] = []
                if case .object(let property) = member.value, case .string(let type)? = property.members.first(where: { $0.key == "type" })?.value {
                    notes.append(type)
                }
                if required.contains(member.key) { notes.append("required") }
                return member.key + (notes.isEmpty ? "" : " (\(notes.joined(separator: ", ")))")
            }.joined(separator: ", ")
        }
    }
}
