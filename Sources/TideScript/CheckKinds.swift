import TideCore
import TideFormat
import TideRegex

/// The kinds of check, one declaration each. A new kind is declared here and evaluated in
/// TideRunner's `CheckEvaluators`; docs/conversations.md describes it.
extension CheckKind {
    /// `contains "text"`: the reply holds the text (case-sensitive).
    public static let contains = CheckKind("contains", .text(what: "the text to look for"))
    /// `icontains "text"`: the reply holds the text, ignoring case.
    public static let icontains = CheckKind("icontains", .text(what: "the text to look for"))
    /// `equals "text"`: the whole reply, without the white space around it.
    public static let equals = CheckKind("equals", .text(what: "the text to compare with"))
    public static let iequals = CheckKind("iequals", .text(what: "the text to compare with"))
    /// `starts-with "text"`: the reply's start, without the white space before it.
    public static let startsWith = CheckKind("starts-with", .text(what: "the text to compare with"))
    public static let istartsWith = CheckKind("istarts-with", .text(what: "the text to compare with"))
    /// `ends-with "text"`: the reply's end, without the white space after it.
    public static let endsWith = CheckKind("ends-with", .text(what: "the text to compare with"))
    public static let iendsWith = CheckKind("iends-with", .text(what: "the text to compare with"))
    /// `contains-any "a" "b" …`: the reply holds one of the texts at least.
    public static let containsAny = CheckKind("contains-any", .texts(what: "the texts to look for, such as \"Paris\" \"Rome\""))
    public static let icontainsAny = CheckKind("icontains-any", .texts(what: "the texts to look for, such as \"Paris\" \"Rome\""))
    /// `contains-all "a" "b" …`: the reply holds every one of the texts.
    public static let containsAll = CheckKind("contains-all", .texts(what: "the texts to look for, such as \"Paris\" \"Rome\""))
    public static let icontainsAll = CheckKind("icontains-all", .texts(what: "the texts to look for, such as \"Paris\" \"Rome\""))
    /// `regex "pattern"`: the reply matches the regular expression somewhere.
    public static let regex = CheckKind("regex", .text(what: "a regular expression")) { pattern in
        do throws(PatternError) {
            _ = try Pattern(pattern)
            return nil
        } catch {
            return ("this regular expression does not compile: \(error)", error.offset)
        }
    }
    /// `length BOUND`: the reply's length in characters.
    public static let length = CheckKind("length", .count(unit: nil))
    /// `words BOUND`: the number of words (runs of characters between white space).
    public static let words = CheckKind("words", .count(unit: nil))
    /// `sentences BOUND`: the number of sentences (text ending in `.`, `!` or `?`, or at the end).
    public static let sentences = CheckKind("sentences", .count(unit: nil))
    /// `tokens BOUND`: the number of tokens generated.
    public static let tokens = CheckKind("tokens", .count(unit: nil))
    /// `ttft BOUND ms`: the time to the first token, in milliseconds.
    public static let timeToFirstToken = CheckKind("ttft", .count(unit: "ms"), needs: .speed)
    /// `rate BOUND tok/s`: the decode rate after the first token.
    public static let rate = CheckKind("rate", .count(unit: "tok/s"), needs: .speed)
    /// `stop REASON`: the stop reason is REASON or starts with `REASON:`
    /// (`stop plugin:word-budget` matches `plugin:word-budget: 8 words`).
    public static let stop = CheckKind("stop", .word(what: "a stop reason such as eos, max-tokens, stop-string or plugin:NAME"))
    /// `json`: the reply (without surrounding white space) is one JSON document.
    public static let json = CheckKind("json", .none)
    /// `json-schema FILE`: the reply is JSON valid against the schema in FILE.
    public static let jsonSchema = CheckKind("json-schema", .schemaFile)
    /// `same-as-recorded`: the reply is the one recorded for its turn (the transcript's
    /// `assistant:` turn and `@generated`, or the golden transcript's).
    public static let sameAsRecorded = CheckKind("same-as-recorded", .none, needs: .recorded)
    /// `tool-call NAME`: the reply called the tool NAME (in any of its rounds).
    public static let toolCall = CheckKind("tool-call", .word(what: "the tool's name")) { name in
        ToolDefinition.problem(withName: name).map { ($0, nil) }
    }
    /// `tool-args SCHEMA`: the reply called tools, and the arguments of every call are valid
    /// against the JSON schema, written inline (`{…}`) or in a file.
    public static let toolArguments = CheckKind("tool-args", .schema) { schema in
        guard ArgumentForm.isInline(schema: schema) else { return nil }
        do {
            _ = try JSONSchema(JSONValue(parsing: schema))
            return nil
        } catch {
            return ("this schema is not one Tide can check: \(error)", nil)
        }
    }
    /// `tool-rounds BOUND`: the number of rounds of tool calls the reply made.
    public static let toolRounds = CheckKind("tool-rounds", .count(unit: nil))
    /// `perplexity BOUND`: the reply's perplexity under the model (the exponential of minus the
    /// mean log-probability of its tokens, the model's end of the reply included when it ended
    /// it), which holds across machines better than exact words do.
    public static let perplexity = CheckKind("perplexity", .measure, needs: .logprobs)
    /// `mean-logprob BOUND`: the mean log-probability of the reply's tokens.
    public static let meanLogprob = CheckKind("mean-logprob", .measure, needs: .logprobs)
    /// `similar "text" BOUND`: the cosine similarity of the reply's meaning and the text's, as an
    /// embedding model reads them.
    public static let similar = CheckKind("similar", .textAndSimilarity, needs: .embeddings)
    /// `similar-to-recorded BOUND`: the cosine similarity of the reply and the one recorded for
    /// its turn (as `same-as-recorded` finds it).
    public static let similarToRecorded = CheckKind("similar-to-recorded", .similarity, needs: [.embeddings, .recorded])
    /// `judge "RUBRIC"`: a judge model, reading the user turn, the reply and the rubric, finds
    /// that the reply meets the rubric.
    public static let judge = CheckKind("judge", .text(what: "the rubric the reply must meet, such as \"names Paris in one sentence\""),
                                        needs: .judge)
    /// `expect-lua: EXPRESSION`: a Lua expression, true to pass, evaluated in the plugin sandbox.
    public static let lua = CheckKind("lua", .luaExpression)

    /// Every kind, in the order error messages list them.
    public static let all: [CheckKind] = [
        contains, icontains, equals, iequals, startsWith, istartsWith, endsWith, iendsWith, containsAny, icontainsAny,
        containsAll, icontainsAll, regex, length, words, sentences, tokens, timeToFirstToken, rate, stop, json, jsonSchema,
        sameAsRecorded, toolCall, toolArguments, toolRounds, perplexity, meanLogprob, similar, similarToRecorded, judge, lua,
    ]
}
