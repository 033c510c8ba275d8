import ArgumentParser
import Foundation
import TideCore
import TideLlama
import TideReports

/// The `tide` command: a hookable chat engine for local language models.
@main
struct Tide: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tide",
        abstract: "A hookable chat engine for local language models.",
        version: tideVersion,
        subcommands: [ChatCommand.self, GenerateCommand.self, RunCommand.self, ServeCommand.self, EmbedCommand.self, ModelsCommand.self, PluginsCommand.self, MCPCommand.self,
                      LogsCommand.self, RunsCommand.self, BenchCommand.self, VersionCommand.self, ManualCommand.self]
    )

    /// Runs the command; a usage error exits with status 2 (as `tide run` documents), not
    /// ArgumentParser's 64, and so does a `TIDE_MACHINE` that cannot be read (``SimulatedMachine``).
    static func main() async {
        do {
            var command = try parseAsRoot(ParameterArguments.rewritten(PluginOptions.rewritten(Array(CommandLine.arguments.dropFirst()))))
            do {
                _ = try SimulatedMachine.fromProcessEnvironment()
            } catch {
                throw ValidationError("\(error)")
            }
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
            try Terminal.finishOutput()
        } catch {
            try? Terminal.finishOutput()
            let arguments = Array(CommandLine.arguments.dropFirst())
            if exitCode(for: error) == .success, arguments.contains(where: { ["-h", "--help", "help"].contains($0) }),
               ParameterArguments.command(of: arguments) is TakesGenerationParameters.Type
            {
                print(fullMessage(for: error) + "\n\n" + ParameterArguments.help)
                Foundation.exit(0)
            }
            // A parameter's value only the model can check (a token id it lacks) is a usage mistake too.
            if exitCode(for: error) == .validationFailure || error is InvalidParameterError {
                // Found while the command ran (its model, say): its usage, not the root's.
                let path = ParameterArguments.commandPath(of: arguments)
                let message = path.isEmpty ? fullMessage(for: error)
                    : "Error: \(Tide.message(for: error))\n  See 'tide \(path.map { $0._commandName }.joined(separator: " ")) --help' for more information."
                FileHandle.standardError.write(Data((message + "\n").utf8))
                Foundation.exit(2)
            }
            // An error from the engine says what to do in words; here its flags are named too.
            if !Remedy.of(error).isEmpty {
                FileHandle.standardError.write(Data(("Error: " + Remedy.withFlags(error) + "\n").utf8))
                Foundation.exit(1)
            }
            exit(withError: error)
        }
    }
}
