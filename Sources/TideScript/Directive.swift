import TideCore

/// A `@name value` line: a setting that applies from where it stands to the end of the script.
public enum Directive: Sendable, Hashable {
    /// `@name TEXT`: what reports call the script (default: the file name).
    case name(String)
    /// `@description TEXT`: one line about what the script checks.
    case description(String)
    /// `@model NAME|PATH`: the model (before the first turn only).
    case model(String)
    /// `@judge NAME|PATH|URL`: the model that grades `expect: judge` checks, a model, a preset or
    /// a server's base URL (before the first turn only); by default the model under test.
    case judge(String)
    /// `@ctx-size N`: the context size in tokens (before the first turn only).
    case contextSize(Int)
    /// `@template NAME`: a chat template override (before the first turn only).
    case template(String)
    /// `@tool-format NAME`: how the model calls tools, in place of what its template tells
    /// (before the first turn only).
    case toolFormat(ToolCallFormat)
    /// A generation parameter (`@temperature 0`, `@stop "\n\n"`, …).
    case parameter(ParameterSetting)
    /// `@plugin NAME key=value …`: loads a plugin from here on, after those already loaded.
    case plugin(String)
    /// `@unload NAME`: removes a plugin from here on.
    case unload(String)
    /// `@mcp [NAME:] COMMAND ARGS…`: an MCP server Tide starts, whose tools the replies may call
    /// (before the first turn only), as `--mcp` gives one.
    case mcp(String)
    /// `@format json|text`, `@json-schema FILE`, `@grammar FILE`: the shape of the replies from
    /// here on.
    case format(FormatSetting)
    /// `@min-pass RATE`: the share of `tide run --repeat` runs in which each expectation from
    /// here on must hold.
    case minimumPassRate(PassRate)
    /// `@var NAME VALUE`: the value `{{NAME}}` takes in the script's turns, checks and directives
    /// (before the first turn only; a data row's column of that name wins, and it wins over
    /// `--var`).
    case variable(name: String, value: String)
    /// `@data FILE`: runs the script once per row of a CSV or JSON Lines file, each row's columns
    /// as variables (before the first turn only; a relative path is from the script's folder).
    case data(file: String)
    /// `@tolerance X`: how far, in logits, a recorded token may fall behind the model's choice and
    /// still be confirmed by teacher forcing, for the replies from here on (0 is exact).
    case tolerance(Double)

    /// Directives that only make sense before the conversation starts.
    var belongsBeforeFirstTurn: Bool {
        switch self {
        case .model, .judge, .contextSize, .template, .toolFormat, .variable, .data, .mcp: true
        default: false
        }
    }
}

/// The shape replies must take, as a directive sets it; files are named as written (a relative
/// path is from the script's folder).
public enum FormatSetting: Sendable, Hashable {
    /// `@format text`: free text (the default).
    case text
    /// `@format json`: any JSON object.
    case json
    /// `@json-schema FILE`: JSON valid against the schema in FILE.
    case jsonSchema(file: String)
    /// `@grammar FILE`: text the GBNF grammar in FILE accepts.
    case grammar(file: String)

    /// The directive names that set a format.
    public static let names = ["format", "json-schema", "grammar"]
}

/// The share of runs in which a check must hold: `0.8` or `80%`, from 0 to 1.
public struct PassRate: Sendable, Hashable, CustomStringConvertible {
    /// From 0 to 1.
    public let fraction: Double

    /// Reads `0.8` or `80%`; `nil` for anything else, or a share outside 0 to 1.
    public init?(parsing text: String) {
        let percent = text.hasSuffix("%")
        guard let number = Double(percent ? String(text.dropLast()) : text), number.isFinite else { return nil }
        let fraction = percent ? number / 100 : number
        guard (0...1).contains(fraction) else { return nil }
        self.fraction = fraction
    }

    /// Every run.
    public static let all = PassRate(parsing: "1")!

    /// Whether `passes` of `runs` reach the rate.
    public func isMet(passes: Int, runs: Int) -> Bool {
        Double(passes) >= fraction * Double(runs) - 1e-9
    }

    /// As a script writes it: `0.8`.
    public var description: String {
        fraction == fraction.rounded() ? String(Int(fraction)) : String(fraction)
    }
}
