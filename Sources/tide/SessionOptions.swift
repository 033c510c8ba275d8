import ArgumentParser
import TideCore

/// `--system` and `--context-overflow`, shared by `tide generate` and `tide chat`.
struct SessionOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "The system prompt (default: the model's; \"\" for none).")
    var system: String?

    @Option(name: .customLong("context-overflow"),
            help: "When the conversation outgrows the context: fail, or drop-oldest turns.")
    var overflow: ContextOverflowPolicy = .fail
}

extension ContextOverflowPolicy: ExpressibleByArgument {}
