import ArgumentParser
import TideCore

extension DraftMode: ExpressibleByArgument {}

/// Generation parameters on the command line: `--NAME VALUE` for every declared parameter
/// (``TideCore/GenerationParameters/declarations``, which ``ParameterArguments`` hands to this
/// group), and the options that change how a reply is made but not which one.
struct SamplingOptions: ParsableArguments {
    /// The declared parameters given, as `NAME=VALUE` (see ``ParameterArguments``).
    @Option(name: .customLong(ParameterArguments.option), parsing: .unconditionalSingleValue, help: .hidden)
    var parameterArguments: [String] = []

    @Option(name: .customLong("max-rewinds"),
            parsing: .unconditional, help: "The most times plugins may take back the end of one reply; past it the reply ends (default: 32).")
    var maxRewinds: Int?

    @Option(name: .customLong("tool"), help: ArgumentHelp("Offer only this tool of the loaded plugins (repeatable; default: all of them).",
                                                          valueName: "name"))
    var tools: [String] = []

    @Option(help: "Draft tokens from the conversation and check them in one decode where a check pays on this machine and batches are exact (lookup), whenever the conversation holds a draft (always), or decode one at a time (off); the reply is the same, alone or on a sequence of a batch (tide serve, run --parallel), but for always where batches drift (a GPU), whose reply may part at a near-tie (default: lookup).")
    var draft: DraftMode?

    /// The parameters given, in the order of ``TideCore/ParameterSetting/names`` (`--max-rewinds`
    /// and `--draft`, which change how a reply is made but not which one, are not among them).
    var settings: [ParameterSetting] {
        get throws {
            var given: [String: [String]] = [:]
            for argument in parameterArguments {
                let (name, value) = ParameterArguments.split(argument)
                guard GenerationParameters.declaration(named: name) != nil else { throw ValidationError("--\(InvalidParameterError(unknown: name))") }
                given[name, default: []].append(value)
            }
            var settings: [ParameterSetting] = []
            for declaration in GenerationParameters.declarations {
                guard let arguments = given[declaration.name] else { continue }
                do {
                    settings.append(try ParameterSetting(name: declaration.name, value: declaration.value(arguments: arguments)))
                } catch {
                    throw ValidationError("--\(error)")
                }
            }
            return settings
        }
    }

    /// `base` (a model's defaults) with the parameters given here over it, validated: a bad
    /// value is a usage error that names it.
    func parameters(over base: GenerationParameters = GenerationParameters()) throws -> GenerationParameters {
        var parameters = base
        for setting in try settings { setting.apply(to: &parameters) }
        if let maxRewinds { parameters.maxRewinds = maxRewinds }
        if let draft { parameters.draft = draft }
        if !tools.isEmpty { parameters.toolNames = tools }
        do {
            try parameters.validate()
        } catch {
            throw ValidationError("--\(error)")
        }
        return parameters
    }

    func validate() throws { _ = try parameters() }
}

/// A command that takes the generation parameters (its ``SamplingOptions``).
protocol TakesGenerationParameters {}

/// The declared parameters on the command line. ArgumentParser knows its options when the
/// program is compiled; the parameters are declared in a table instead, so `tide` turns each
/// `--NAME VALUE` (or `--NAME=VALUE`) of a command that takes them into the hidden option
/// `--parameter NAME=VALUE` before parsing, and adds their help to the command's.
enum ParameterArguments {
    /// The hidden option that carries them.
    static let option = "parameter"

    /// `arguments` (without the program's name) with the parameters of a command that takes them
    /// rewritten; arguments after `--` are left as they are.
    static func rewritten(_ arguments: [String]) -> [String] {
        guard command(of: arguments) is TakesGenerationParameters.Type else { return arguments }
        return rewrittenParameters(arguments)
    }

    /// `arguments` with every parameter rewritten, whatever command they are for (a `--target`'s
    /// options, say).
    static func rewrittenParameters(_ arguments: [String]) -> [String] {
        let names = Set(ParameterSetting.names)
        var result: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                result += arguments[index...]
                break
            }
            index += 1
            guard argument.hasPrefix("--") else {
                result.append(argument)
                continue
            }
            let body = argument.dropFirst(2)
            if let equals = body.firstIndex(of: "="), names.contains(String(body[..<equals])) {
                result += ["--" + option, String(body[..<equals]) + "=" + body[body.index(after: equals)...]]
            } else if names.contains(String(body)) {
                // An option with no value left reads as an empty one, which its checks refuse by name.
                result += ["--" + option, String(body) + "=" + (index < arguments.count ? arguments[index] : "")]
                index += 1
            } else {
                result.append(argument)
            }
        }
        return result
    }

    /// `NAME=VALUE` split at its first `=`.
    static func split(_ argument: String) -> (name: String, value: String) {
        guard let equals = argument.firstIndex(of: "=") else { return (argument, "") }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    /// The command `arguments` run (`tide help chat` names `chat`): the subcommands named from
    /// the first argument on.
    static func command(of arguments: [String]) -> ParsableCommand.Type {
        commandPath(of: arguments).last ?? Tide.self
    }

    /// The subcommands `arguments` name, outermost first (`mcp`, `list`); empty for the root.
    static func commandPath(of arguments: [String]) -> [ParsableCommand.Type] {
        var path: [ParsableCommand.Type] = []
        for argument in arguments.drop(while: { $0 == "help" }) {
            let command = path.last ?? Tide.self
            guard let next = command.configuration.subcommands.first(where: { $0._commandName == argument }) else { break }
            path.append(next)
        }
        return path
    }

    /// `command`'s help as `tide help COMMAND` prints it, 80 columns wide: with the parameters'
    /// when it takes them.
    static func help(of command: ParsableCommand.Type) -> String {
        let own = command.helpMessage(columns: 80)
        return command is TakesGenerationParameters.Type ? own + "\n\n" + help : own
    }

    /// The help of the parameters, as ArgumentParser lays out options.
    static var help: String {
        let width = 24
        var lines = ["GENERATION PARAMETERS:"]
        for declaration in GenerationParameters.declarations {
            let option = "  --\(declaration.name) <\(declaration.placeholder)>"
            let words = declaration.help.split(separator: " ")
            var line = option.count < width ? option.padding(toLength: width, withPad: " ", startingAt: 0) : option
            var column = line.count
            if option.count >= width {
                lines.append(line)
                line = String(repeating: " ", count: width)
                column = width
            }
            for word in words {
                if column + word.count + 1 > 80, column > width {
                    lines.append(line)
                    line = String(repeating: " ", count: width)
                    column = width
                }
                line += (column > width ? " " : "") + word
                column += (column > width ? 1 : 0) + word.count
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
