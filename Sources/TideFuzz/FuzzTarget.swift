import Foundation
import TideAnthropic
import TideCore
import TideFormat
import TideLua
import TideOpenAI
import TideRegex
import TideScript

/// One parser fed with hostile bytes: every input must end in a value or a thrown error, in
/// bounded time and memory; a crash, a hang or an exhausted memory is a finding. Errors are
/// expected and ignored. Each target goes one step past its parser where the parsed value is
/// used at once (a grammar compiled, a schema validating, a pattern matching).
enum FuzzTarget: String, CaseIterable, Sendable {
    /// `ConversationScript(bytes:)`, then printing what parsed.
    case script
    /// `Grammar(gbnf:)` and `CompiledGrammar`, then a cursor over the text itself and its
    /// shortest completion.
    case grammar
    /// A JSON Schema read, turned into a grammar, and validating itself.
    case schema
    /// A pattern (up to the first NUL) compiled and matched against the rest of the input.
    case regex
    /// `JSONValue(parsing:)`, and the value written back out.
    case json
    /// A body decoded as `tide serve` decodes one: a chat and a text completion request, their
    /// parameters, reply format and tools.
    case request
    /// A plugin's source loaded in the sandbox, its top level run under small limits.
    case plugin

    /// Runs one input.
    func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        switch self {
        case .script:
            if let script = try? ConversationScript(bytes: bytes) { _ = script.printed() }
        case .grammar:
            guard let compiled = try? CompiledGrammar(gbnf: text) else { return }
            var cursor = GrammarCursor(compiled)
            _ = cursor.shortestCompletion
            _ = cursor.advance(bytes.prefix(64))
            _ = cursor.shortestCompletion
        case .schema:
            guard let value = try? JSONValue(parsing: text), let schema = try? JSONSchema(value) else { return }
            _ = schema.violations(of: value)
        case .regex:
            let parts = bytes.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
            guard let pattern = try? Pattern(String(decoding: parts[0], as: UTF8.self)) else { return }
            let subject = parts.count > 1 ? String(decoding: parts[1], as: UTF8.self) : text
            _ = try? pattern.firstMatch(in: subject, budget: MatchBudget(maximumSteps: 1 << 22))
        case .json:
            if let value = try? JSONValue(parsing: text) { _ = value.text }
        case .request:
            let data = Data(bytes)
            if let chat = try? JSONDecoder().decode(ChatCompletionRequest.self, from: data) {
                _ = try? chat.parameters(over: GenerationParameters())
            }
            if let completion = try? JSONDecoder().decode(TextCompletionRequest.self, from: data) {
                _ = try? completion.chat.parameters(over: GenerationParameters())
            }
            if let body = try? JSONValue(parsing: text) {
                _ = try? ReplyFormat.requested(in: body)
                _ = try? ToolOffer.requested(in: body)
                // The Messages and Responses APIs' bodies, read into a chat completion's.
                for purpose in [MessagesRequest.Purpose.reply, .count] {
                    _ = try? MessagesRequest(parsing: body, for: purpose).chat.parameters(over: GenerationParameters())
                }
                _ = try? ResponsesRequest(parsing: body).chat.parameters(over: GenerationParameters())
            }
        case .plugin:
            _ = try? LuaPlugin(source: text, path: "fuzz.lua", limits: Self.pluginLimits)
        }
    }

    /// Small limits, so that each input is quick; the instruction budget stops a loop before
    /// the clock would.
    static let pluginLimits = LuaLimits(instructions: 1_000_000, memoryBytes: 16 << 20, time: .seconds(2))
}
