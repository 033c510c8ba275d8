import TideCore

/// What a plugin's sandbox holds, declared once: the globals and libraries it keeps, the `tide`
/// table's fields and functions, and every hook with the tables it receives and returns. The
/// editor types (`tide plugins types`) and the luacheck configuration (`tide plugins
/// luacheckrc`) are written from it, and a test checks it against a live sandbox: everything the
/// sandbox exposes is declared, and nothing is declared that it does not expose.
public enum PluginAPI {
    /// One declared name: a function with its LuaLS signature, or a value with its LuaLS type.
    public struct Member: Sendable, Hashable {
        /// Its name within its table (`rewind`).
        public let name: String
        /// A function's parameters and results, as LuaLS writes them (`fun(at: integer): nil`);
        /// `nil` for a value.
        public let function: String?
        /// A value's LuaLS type (`table<string, any>`); `nil` for a function.
        public let type: String?
        /// What it is, in a sentence.
        public let summary: String

        /// A function.
        static func function(_ name: String, _ signature: String, _ summary: String) -> Member {
            Member(name: name, function: signature, type: nil, summary: summary)
        }

        /// A value.
        static func value(_ name: String, _ type: String, _ summary: String) -> Member {
            Member(name: name, function: nil, type: type, summary: summary)
        }
    }

    /// The global functions and values the sandbox keeps (Lua's base library, less `dofile`,
    /// `loadfile` and a binary `load`; `print` goes to `tide.log`).
    public static let globals = ["_G", "_VERSION", "assert", "collectgarbage", "error", "getmetatable", "ipairs", "load", "next",
                                 "pairs", "pcall", "print", "rawequal", "rawget", "rawlen", "rawset", "select", "setmetatable",
                                 "tonumber", "tostring", "type", "warn", "xpcall"]

    /// The libraries it keeps, each with the fields it keeps (`string` without `dump`, `os` with
    /// `clock`, `time` and `date` only; no `io`, `debug`, `package` or `coroutine`).
    public static let libraries: [String: [String]] = [
        "string": ["byte", "char", "find", "format", "gmatch", "gsub", "len", "lower", "match", "pack", "packsize", "rep", "reverse",
                   "sub", "unpack", "upper"],
        "table": ["concat", "insert", "move", "pack", "remove", "sort", "unpack"],
        "math": ["abs", "acos", "asin", "atan", "atan2", "ceil", "cos", "cosh", "deg", "exp", "floor", "fmod", "frexp", "huge", "ldexp",
                 "log", "log10", "max", "maxinteger", "min", "mininteger", "modf", "pi", "pow", "rad", "random", "randomseed", "sin",
                 "sinh", "sqrt", "tan", "tanh", "tointeger", "type", "ult"],
        "utf8": ["char", "charpattern", "codepoint", "codes", "len", "offset"],
        "os": ["clock", "date", "time"],
    ]

    /// What Lua's standard libraries have that the sandbox removed, for a linter to flag.
    public static let removed = ["io", "debug", "package", "require", "dofile", "loadfile", "coroutine", "os.execute", "os.exit",
                                 "os.getenv", "os.remove", "os.rename", "os.tmpname", "os.difftime", "os.setlocale", "string.dump"]

    /// The `tide` table (docs/plugins.md, "The `tide` table").
    public static let tide: [Member] = [
        .value("state", "table", "Kept across the turns of a session; the plugin's own."),
        .value("options", "table<string, string|number|boolean>", "The options in effect: the declared defaults, as given."),
        .value("plugin", "string", "The plugin's name."),
        .value("version", "string", "Tide's version."),
        .value("model", "tide.Model", "What the session's model says of itself (absent before a session)."),
        .function("log", "fun(...: any)", "Writes its arguments, space-separated, to standard error as `[plugin] …`."),
        .function("stop", "fun(reason?: string)", "Ends the reply after this token's text (in on_token and should_stop)."),
        .function("rewind", "fun(at: integer, options?: {ban?: boolean, also_ban?: integer[]})",
                  "Takes the reply back from byte `at` on (in should_stop); the first token taken back is banned there unless `ban = false`."),
        .function("tokenize", "fun(text: string): integer[]", "The model's tokens of `text` (no special tokens)."),
        .function("detokenize", "fun(tokens: integer[]): string", "The text of a token sequence."),
        .function("token_text", "fun(id: integer): string", "One token's text."),
        .function("realpath", "fun(path: string): string?, integer|string",
                  "Where a path leads, its links and `..` resolved: the path and the lookups it took, or nil and why."),
        .function("nfkc", "fun(text: string): string", "The text in Unicode normalization form NFKC."),
    ]

    /// `tide.model`'s fields.
    public static let model: [Member] = [
        .value("name", "string", "The model's name."),
        .value("backend", "string", "Where it runs: llama.cpp, a server, …"),
        .value("context", "integer", "The context's size in tokens."),
        .value("architecture", "string?", "Its architecture, when known."),
        .value("trained_context", "integer?", "The context it was trained for, when known."),
        .value("vocabulary_size", "integer?", "Its vocabulary's size, when known."),
        .value("end_tokens", "integer[]?", "The tokens that end its turns."),
    ]

    /// What each hook receives and returns, as LuaLS writes it (docs/plugins.md, "The hooks").
    public static func signature(of hook: HookPoint) -> String {
        switch hook {
        case .prompt: "fun(prompt: tide.Prompt): string?"
        case .logits: "fun(view: tide.LogitsView, reply: tide.Reply)"
        case .stop: "fun(reply: tide.Reply): boolean?, string?"
        case .token: "fun(token: tide.Token, reply: tide.Reply): string|false|nil"
        case .reply: "fun(reply: tide.FinishedReply): string?"
        case .toolCall: "fun(call: tide.ToolCall): {refuse: string}|{answer: any}|{arguments: table}|nil"
        case .toolResult: "fun(result: tide.ToolResult): string?"
        }
    }

    /// The tables hooks receive, by LuaLS class: each field with its type and what it is.
    public static let classes: [(name: String, parent: String?, summary: String, fields: [Member])] = [
        ("tide.Message", nil, "A message of the conversation.", [
            .value("role", "\"system\"|\"user\"|\"assistant\"|\"tool\"", "Who wrote it."),
            .value("content", "string", "Its text."),
        ]),
        ("tide.Prompt", nil, "What on_prompt may edit in place.", [
            .value("messages", "tide.Message[]", "The conversation, the new user message last."),
            .value("params", "table<string, any>", "Every generation parameter under its JSON name, and `format`."),
        ]),
        ("tide.Reply", nil, "The reply so far.", [
            .value("text", "string", "The whole reply so far (before on_token's filtering)."),
            .value("tokens", "integer", "Tokens generated."),
            .value("elapsed", "number", "Seconds since the request."),
            .value("reasoning", "string", "A thinking model's reasoning so far."),
        ]),
        ("tide.Token", nil, "The text about to be shown.", [
            .value("text", "string", "The text."),
            .value("id", "integer?", "Its token, when it is one token's."),
            .value("index", "integer", "Its place in the reply, from 0."),
            .value("final", "boolean", "True in the call after the last token, whose text is empty."),
        ]),
        ("tide.FinishedReply", nil, "The reply once it ended.", [
            .value("raw", "string", "As generated."),
            .value("text", "string", "As shown."),
            .value("stored", "string", "What the history keeps."),
            .value("stop_reason", "string", "Why it ended: eos, max-tokens, plugin:NAME, …"),
            .value("stats", "table", "prompt_tokens, generated_tokens, time_to_first_token, tokens_per_second."),
            .value("reasoning", "string", "A thinking model's reasoning."),
        ]),
        ("tide.Candidate", nil, "A token the model may sample next.", [
            .value("id", "integer", "Its id."),
            .value("text", "string", "Its text."),
            .value("logit", "number", "Its score."),
        ]),
        ("tide.LogitsView", nil, "The scores before a token is sampled.", [
            .function("top", "fun(self: tide.LogitsView, k?: integer): tide.Candidate[]", "The k best candidates, best first."),
            .function("bias", "fun(self: tide.LogitsView, id: integer, delta: number)", "Adds to a token's score."),
            .function("ban", "fun(self: tide.LogitsView, id: integer)", "Makes a token impossible."),
        ]),
        ("tide.ToolCall", nil, "A tool call before it runs.", [
            .value("name", "string", "The tool."),
            .value("arguments", "table|string", "Its arguments; the text as written where they are not a JSON object."),
            .value("provider", "string", "The plugin's name, or mcp:SERVER."),
            .value("round", "integer", "The round of calls, from 1."),
        ]),
        ("tide.ToolResult", "tide.ToolCall", "A tool call's result, before the model reads it.", [
            .value("content", "string", "The result."),
            .value("failed", "boolean", "Whether the call failed."),
        ]),
    ]
}
