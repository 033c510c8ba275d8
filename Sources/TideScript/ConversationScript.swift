/// A conversation script: the lines of a `.tide` file, in order (docs/conversations.md).
///
/// Comments and blank lines are kept, so printing a parsed script gives back the same
/// conversation, and a transcript (a script with its generated replies filled in) is itself a
/// script that `tide run` replays.
///
/// ```swift
/// let script = try ConversationScript(parsing: "@temperature 0\nuser: Hi!\nexpect: contains \"Hello\"\n")
/// print(script.printed())
/// ```
public struct ConversationScript: Sendable, Hashable {
    /// The script's lines, each with where it starts in the file.
    public var entries: [ScriptEntry]
    /// The values its variables took, as parsed (``ScriptVariables``): its row's columns in the
    /// file's order, then the other variables it refers to, in the order of first reference.
    public var variables: [DataRow.Column] = []

    /// A script made of `entries`.
    public init(entries: [ScriptEntry] = []) {
        self.entries = entries
    }

    /// The items alone, without their positions: what a round trip must preserve.
    public var items: [ScriptItem] { entries.map(\.item) }

    /// The script's `@name`, if it has one.
    public var name: String? {
        entries.lazy.compactMap { if case .directive(.name(let name)) = $0.item { name } else { nil } }.first
    }
}

/// One item of a script and the line it starts on (1-based; 0 for items made in code).
public struct ScriptEntry: Sendable, Hashable {
    /// What the line says.
    public var item: ScriptItem
    /// The line it starts on.
    public var line: Int
    /// The line(s) as written, where they referred to variables (`{{name}}`): the item holds the
    /// values, and a transcript writes the line as it was, with its variables' values recorded.
    public var written: String?

    /// An item at `line`.
    public init(_ item: ScriptItem, line: Int = 0, written: String? = nil) {
        self.item = item
        self.line = line
        self.written = written
    }
}

/// What a line (or a block of lines) of a script is.
public enum ScriptItem: Sendable, Hashable {
    /// An empty line (insignificant; kept for printing).
    case blank
    /// `# text`: the text after the `#`, as written.
    case comment(String)
    /// `@name value`: a setting that applies from here on.
    case directive(Directive)
    /// `system:`, `user:`, `assistant:`, `tool-call:` or `tool:` and the text.
    case turn(Turn)
    /// `@generated …`: marks the assistant turn before it as a recorded reply (in transcripts).
    case generated(ReplyRecord)
    /// `expect: …` or `expect-lua: …`: a check on the reply before it.
    case expectation(Expectation)
}

/// Who speaks in a turn.
public enum TurnRole: String, Sendable, Hashable, CaseIterable {
    case system, user, assistant
    /// `tool-call:` a call the assistant makes: `{"name": …, "arguments": {…}}`, as it wrote it.
    case toolCall = "tool-call"
    /// `tool:` what a call gave (the results follow their round's calls, in order).
    case tool
    /// `reasoning:` a thinking model's reasoning (its `<think>` block, tags left out), right
    /// before the `assistant:` answer it led to.
    case reasoning
}

/// A turn of the conversation.
public struct Turn: Sendable, Hashable {
    /// Who speaks.
    public var role: TurnRole
    /// What they say, exactly (a block may hold several lines).
    public var text: String

    /// A turn.
    public init(_ role: TurnRole, _ text: String) {
        self.role = role
        self.text = text
    }
}

/// What a transcript records about a generated reply: how it ended and how long it was.
public struct ReplyRecord: Sendable, Hashable {
    /// The stop reason as `--stats` shows it (`eos`, `plugin:word-budget: 8 words`, …).
    public var stopReason: String
    /// Tokens generated (over all its rounds).
    public var tokens: Int
    /// How many rounds of tool calls before the answer the reply made itself (`rounds=N`): the
    /// last N rounds written before its `assistant:` turn; earlier ones were given.
    public var rounds: Int
    /// The verdicts of its `expect: judge` checks (`@verdict` lines after `@generated`), which a
    /// run takes again for the reply when teacher forcing confirms it whole.
    public var verdicts: [RecordedVerdict] = []

    /// A record.
    public init(stopReason: String, tokens: Int, rounds: Int = 0, verdicts: [RecordedVerdict] = []) {
        self.stopReason = stopReason
        self.tokens = tokens
        self.rounds = rounds
        self.verdicts = verdicts
    }
}

/// A judge's verdict on a recorded reply: `@verdict pass|fail "RUBRIC" "REASON"`.
public struct RecordedVerdict: Sendable, Hashable, Codable {
    /// The rubric of the `expect: judge` check.
    public var rubric: String
    /// Whether the judge found the reply met it.
    public var passed: Bool
    /// The judge's reason.
    public var reason: String

    /// A verdict.
    public init(rubric: String, passed: Bool, reason: String) {
        self.rubric = rubric
        self.passed = passed
        self.reason = reason
    }
}
