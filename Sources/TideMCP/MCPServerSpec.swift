import Foundation
import TideCore

/// An MCP server as `--mcp` names it: `[NAME:] COMMAND ARGS…`, a program Tide starts as its
/// child and speaks to over its standard input and output. The name prefixes the server's tools
/// (`time__get_current_time`), so two servers' tools never clash.
///
/// ```swift
/// let spec = try MCPServerSpec(parsing: "mcp-server-time --local-timezone UTC")
/// print(spec.name, spec.command)   // time ["mcp-server-time", "--local-timezone", "UTC"]
/// ```
public struct MCPServerSpec: Sendable, Hashable, CustomStringConvertible {
    /// What its tools' names start with, before `__`: letters, digits and `-`.
    public var name: String
    /// The program and its arguments.
    public var command: [String]

    /// A server named `name` run by `command`.
    public init(name: String, command: [String]) throws(MCPSpecError) {
        guard Self.isName(name) else {
            throw MCPSpecError("an MCP server's name is 1 to 24 letters, digits or '-' (it starts its tools' names), not '\(name)'")
        }
        guard command.first.map({ !$0.isEmpty }) ?? false else {
            throw MCPSpecError("give the server's command, e.g. --mcp 'time: mcp-server-time'")
        }
        self.name = name
        self.command = command
    }

    /// Reads `--mcp`'s value: an optional `NAME:` and the command, split as a shell splits words.
    /// Without a name, the server is named after its program (`mcp-server-time` → `time`).
    public init(parsing text: String) throws(MCPSpecError) {
        var rest = Substring(text)
        var name: String?
        let isURL = { (text: Substring) in ["http://", "https://"].contains { text.trimmingCharacters(in: .whitespaces).hasPrefix($0) } }
        if !isURL(rest), let colon = text.firstIndex(of: ":"), Self.isName(text[..<colon].trimmingCharacters(in: .whitespaces)) {
            name = text[..<colon].trimmingCharacters(in: .whitespaces)
            rest = text[text.index(after: colon)...]
        }
        if isURL(rest) {
            throw MCPSpecError("--mcp '\(text)': servers over HTTP are not supported: the MCP Swift SDK's HTTP transport does not read "
                               + "streamed (server-sent event) answers on Linux, which streamable-HTTP servers send; run the server "
                               + "as a command instead (most servers take a stdio mode), e.g. --mcp 'NAME: COMMAND ARGS'")
        }
        let words: [String]
        do {
            words = try ShellWords.split(String(rest))
        } catch {
            throw MCPSpecError("--mcp '\(text)': \(error)")
        }
        guard let program = words.first else { throw MCPSpecError("--mcp needs a command, e.g. --mcp 'time: mcp-server-time'") }
        try self.init(name: name ?? Self.name(naming: program, arguments: Array(words.dropFirst())), command: words)
    }

    /// A name from a command: its program's file name, or for an interpreter or launcher
    /// (`python3 server.py`, `uvx mcp-server-git`) its first argument's, without an extension and
    /// without `mcp-server-`, `mcp-` or `-mcp`, other characters written `-`.
    static func name(naming program: String, arguments: [String]) -> String {
        let launchers: Set<String> = ["python", "python3", "node", "uvx", "npx", "uv", "deno", "bun", "pipx", "sh", "bash", "env"]
        var word = URL(fileURLWithPath: program).lastPathComponent
        if launchers.contains(word), let first = arguments.first(where: { !$0.hasPrefix("-") && $0 != "run" }) {
            word = URL(fileURLWithPath: first).deletingPathExtension().lastPathComponent
        }
        for affix in ["mcp-server-", "mcp_server_", "mcp-"] where word.hasPrefix(affix) && word.count > affix.count {
            word = String(word.dropFirst(affix.count))
        }
        if word.hasSuffix("-mcp") && word.count > 4 { word = String(word.dropLast(4)) }
        let name = String(word.unicodeScalars.prefix(24).map { Self.isNameScalar($0) ? Character($0) : "-" })
        return name.isEmpty ? "mcp" : name
    }

    /// Whether `name` can name a server: 1 to 24 letters, digits or `-`.
    public static func isName(_ name: some StringProtocol) -> Bool {
        (1...24).contains(name.count) && name.unicodeScalars.allSatisfy(isNameScalar)
    }

    private static func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "-"
    }

    /// `NAME: COMMAND…`, as `--mcp` takes it back.
    public var description: String { "\(name): " + command.map(Self.quoted).joined(separator: " ") }

    private static func quoted(_ word: String) -> String {
        word.isEmpty || word.contains(where: { $0.isWhitespace || "'\"\\$`".contains($0) })
            ? "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" : word
    }

    /// The name a server's tool is offered under: `NAME__TOOL`, the tool's characters other
    /// than letters, digits, `_` and `-` written `_` (a tool name is at most 64 characters).
    public func offeredName(of tool: String) -> String {
        name + "__" + String(tool.unicodeScalars.map {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" ? Character($0) : "_"
        })
    }
}

/// An `--mcp` value that does not name a server Tide can run.
public struct MCPSpecError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String

    /// An error that says `description`.
    public init(_ description: String) {
        self.description = description
    }
}

extension MCPServerSpec {
    /// The servers `settings` name, read, each spec once, in order; two servers of one name are
    /// refused, since their tools would be named alike. An error names the setting and where it
    /// was given.
    public static func reading(_ settings: [Sourced]) throws(SourcedError) -> [MCPServerSpec] {
        var specs: [MCPServerSpec] = []
        for setting in settings {
            do {
                let spec = try MCPServerSpec(parsing: setting.text)
                if specs.contains(spec) { continue }
                if specs.contains(where: { $0.name == spec.name }) {
                    throw MCPSpecError("another MCP server is named \(spec.name), and their tools would be too: name each ('NAME: COMMAND')")
                }
                specs.append(spec)
            } catch {
                throw SourcedError(setting, error)
            }
        }
        return specs
    }
}
