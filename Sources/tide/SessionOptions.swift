import ArgumentParser
import TideCore

/// `--system` and `--context-overflow`, shared by `tide generate` and `tide chat`.
struct SessionOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "The system prompt (default: the model's; \"\" for none).")
    var system: String?

    @Option(name: .customLong("context-overflow"),
            help: "When the conversation outgrows the context: fail, drop-oldest turns, or shift (a local model keeps the system prompt and the latest tokens in its cache, the rest shifted, no re-evaluation).")
    var overflow: ContextOverflowPolicy = .fail
}

extension ContextOverflowPolicy: ExpressibleByArgument {}
