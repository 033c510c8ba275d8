/// A tool the model may call: a function with a name, what it does, and the JSON schema of its
/// arguments. Plugins declare them (`tools = { … }`); `tide serve` takes them from a request.
public struct ToolDefinition: Sendable, Hashable, Codable {
    /// The function's name: letters, digits, `_` and `-`, at most 64 characters (OpenAI's rule).
    public var name: String
    /// What the tool does, for the model to decide when to call it.
    public var description: String
    /// The JSON schema of the arguments object, as JSON text.
    public var parameters: String

    /// A tool definition.
    public init(name: String, description: String, parameters: String) {
        self.name = name
        self.description = description
        self.parameters = parameters
    }

    /// Why `name` cannot name a tool, or `nil` when it can.
    public static func problem(withName name: String) -> String? {
        let allowed = name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-") }
        if name.isEmpty || name.count > 64 || !allowed {
            return "a tool's name is 1 to 64 letters, digits, '_' or '-', not \"\(name)\""
        }
        return nil
    }
}

/// One call of a tool, as the model wrote it.
public struct ToolCall: Sendable, Hashable, Codable {
    /// A new call id, `call_` and 24 random letters and digits, as OpenAI's look: unique across
    /// replies and conversations, so a client that keys calls by id never confuses two.
    public static func freshID() -> String { freshID("call") }

    /// A new id of an object of `kind` (`call`, `msg`, `resp`…): `kind`, `_` and 24 random
    /// letters and digits, as OpenAI's and Anthropic's ids look.
    public static func freshID(_ kind: String) -> String {
        let characters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return kind + "_" + String((0..<24).map { _ in characters.randomElement()! })
    }

    /// The call's id (`call_…`), which its result refers to.
    public var id: String
    /// The tool called.
    public var name: String
    /// The arguments, as a JSON object's text.
    public var arguments: String
    /// The call as the model wrote it (its JSON, spaced as the model spaced it), when a local
    /// model wrote it: the prompt of the next round shows the model its own text, and a
    /// transcript keeps it so that teacher forcing can check it. `nil` for a call that came as
    /// data (a server's, a client's).
    public var written: String?

    /// A tool call.
    public init(id: String, name: String, arguments: String, written: String? = nil) {
        self.id = id
        self.name = name
        self.arguments = arguments
        self.written = written
    }
}

/// A turn as a transcript recorded it, for teacher forcing to check (``ChatSession/reply(to:forcing:)``):
/// each round of tool calls — what the model said before the calls, and the calls as it wrote
/// them — then the answer.
public struct RecordedTurn: Sendable, Hashable {
    /// One round: the text before the calls, and the calls.
    public struct Round: Sendable, Hashable {
        public var text: String
        public var calls: [ToolCall]

        /// A round.
        public init(text: String, calls: [ToolCall]) {
            self.text = text
            self.calls = calls
        }
    }

    /// The rounds that called tools, in order.
    public var rounds: [Round]
    /// The answer after them.
    public var answer: String
    /// A thinking model's reasoning before the answer, tags left out; `nil` for none.
    public var reasoning: String?

    /// A recorded turn.
    public init(rounds: [Round] = [], answer: String, reasoning: String? = nil) {
        self.rounds = rounds
        self.answer = answer
        self.reasoning = reasoning
    }

    /// What the model wrote in round `index` (the answer after the rounds), as `reader` writes
    /// calls and a thinking model's `markers` its reasoning (in a block as the templates write it
    /// back: `<think>\n…\n</think>\n\n`, its open tag left to a prompt that opens it); `nil` past
    /// the answer, or for a round of calls with no reader to write them.
    func text(ofRound index: Int, reader: (any ToolCallReader)?, markers: ReasoningMarkers?) -> String? {
        if index == rounds.count {
            guard let reasoning, let markers else { return answer }
            return (markers.openedByPrompt ? "" : markers.open) + "\n" + reasoning + "\n" + markers.close + "\n\n" + answer
        }
        guard index < rounds.count, let reader else { return nil }
        return rounds[index].text + reader.written(rounds[index].calls)
    }
}

/// Asked before a call is run (`--approve-tools`): `true` runs it, `false` declines it.
public typealias ToolApproval = @Sendable (ToolCall) async -> Bool

/// What running a tool call gave: its text for the model, and whether it failed (the text then
/// says why, and the model sees that too).
public struct ToolResult: Sendable, Hashable, Codable {
    /// The call this answers.
    public var call: ToolCall
    /// What the model is told.
    public var content: String
    /// Whether the tool failed (an error, a time or memory limit, an unknown tool, bad arguments).
    public var failed: Bool
    /// How long the tool ran.
    public var duration: Duration

    /// A tool result.
    public init(call: ToolCall, content: String, failed: Bool, duration: Duration) {
        self.call = call
        self.content = content
        self.failed = failed
        self.duration = duration
    }
}

/// Whether the model may, must or must not call tools.
public enum ToolChoice: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The model decides (the default).
    case auto
    /// Tools are not offered.
    case none
    /// The reply is one or more tool calls.
    case required
    /// The reply is a call of this tool.
    case named(String)

    /// The choice as users write it: `auto`, `none`, `required`, or a tool's name.
    public init(_ text: String) {
        switch text {
        case "auto": self = .auto
        case "none": self = .none
        case "required": self = .required
        default: self = .named(text)
        }
    }

    public var description: String {
        switch self {
        case .auto: "auto"
        case .none: "none"
        case .required: "required"
        case .named(let name): name
        }
    }
}
