import ArgumentParser

/// The `tide` command: a hookable chat engine for local language models.
@main
struct Tide: AsyncParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "tide",
        abstract: "A hookable chat engine for local language models.",
        version: version,
        subcommands: [GenerateCommand.self, ModelsCommand.self, PluginsCommand.self, BenchCommand.self]
    )
}
