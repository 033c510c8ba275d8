import ArgumentParser
import Foundation
import TideCore

/// `tide manual`: the man page, in roff, made from the commands' own help (`make install`
/// writes it to share/man/man1/tide.1). Hidden from the command list.
struct ManualCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "manual", abstract: "Print the man page (roff) of tide and its commands.", shouldDisplay: false)

    func run() {
        print(Self.page(date: Date()))
    }

    /// The page: name, synopsis, description, then each command's help as `tide help COMMAND` prints it.
    static func page(date: Date) -> String {
        let root = Tide.configuration
        var lines = [
            ".TH TIDE 1 \"\(date.formatted(.iso8601.year().month().day()))\" \"tide \(tideVersion)\" \"User Commands\"",
            ".SH NAME", "tide \\- " + escape(root.abstract),
            ".SH SYNOPSIS", ".B tide", ".I command", ".RI [ options ]",
            ".SH DESCRIPTION",
            escape("Tide streams replies from a local model (llama.cpp) or an OpenAI-compatible server, through Lua plugins "
                   + "that may bias, filter, stop and take back text. Run `tide help COMMAND` for a command's options."),
            ".SH COMMANDS",
        ]
        for command in root.subcommands where command.configuration.shouldDisplay {
            let name = command.configuration.commandName ?? "\(command)"
            lines += [".SS tide \(name)", ".nf", escape(ParameterArguments.help(of: command)), ".fi"]
        }
        lines += [".SH FILES",
                  ".TP", ".I ~/.config/tide/plugins", "Your plugins; ./Plugins comes first, the plugins shipped in tide last.",
                  ".TP", ".I ~/.config/tide/models.json", "Your model entries: remote models and presets.",
                  ".TP", ".I ~/.cache/tide/models", "Downloaded model files.",
                  ".TP", ".I ~/.cache/tide/replies", "The reply cache of tide run (--no-cache, --cache-size).",
                  ".TP", ".I ~/.cache/tide/mcp/bin", "MCP servers make setup installs (time, git); --mcp finds a command there after the PATH.",
                  ".SH ENVIRONMENT",
                  ".TP", ".B XDG_CONFIG_HOME, XDG_CACHE_HOME", "Move the folders above.",
                  ".TP", ".B TIDE_CACHE_DIR", "The reply cache's folder, instead of ~/.cache/tide/replies.",
                  ".TP", ".B TIDE_API_KEY, OPENAI_API_KEY", "The key sent to a remote model's server.",
                  ".TP", ".B NO_COLOR", "Plain output on a terminal.",
                  ".TP", ".B TIDE_MACHINE", "Run as if on another machine: noise=SEED moves every score as another CPU's kernels do, "
                      + "costs=cheap|dear gives what a drafted check costs, batch-drift=AMOUNT scores batches otherwise than single tokens."]
        return lines.joined(separator: "\n")
    }

    /// `text` with roff's escape character and line-leading control characters made literal.
    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\e").split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix(".") || $0.hasPrefix("'") ? "\\&" + $0 : String($0) }.joined(separator: "\n")
    }
}
