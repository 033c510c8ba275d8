import ArgumentParser
import TideCore

/// The `tide` command: a hookable chat engine for local language models.
@main
struct Tide: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tide",
        abstract: "A hookable chat engine for local language models.",
        version: tideVersion,
        subcommands: [GenerateCommand.self, ModelsCommand.self, PluginsCommand.self, BenchCommand.self]
    )
}
