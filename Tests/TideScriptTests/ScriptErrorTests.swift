import Testing
import TideScript

/// Every error names its line and column and says what would be right.
struct ScriptErrorTests {
    @Test(arguments: [
        ("hello there", 1, 1, "expected a turn (system:, user:, assistant:, tool-call:, tool:, reasoning:)"),
        ("user: Hi\n  and more", 2, 3, "open a block with user: \"\"\""),
        ("@temprature 0", 1, 1, "unknown directive @temprature; directives are @name"),
        ("@temperature hot", 1, 14, "@temperature must be ≥ 0 (0 picks the likeliest token), at most 3.4e+38, not 'hot'"),
        ("@temperature -1", 1, 14, "@temperature must be ≥ 0 (0 picks the likeliest token), at most 3.4e+38, not '-1'"),
        ("@top-p 2", 1, 8, "@top-p must be a number in (0, 1], not '2'"),
        ("@max-tokens -1", 1, 13, "@max-tokens must be a whole number from 0 to 2147483647, not '-1'"),
        ("@seed -3", 1, 7, "@seed must be a whole number from 0 to 4294967294, or random"),
        ("@ctx-size 8", 1, 11, "@ctx-size must be a whole number from 16 to 16777216"),
        ("@tool-format xml", 1, 14, "@tool-format must be one of hermes, llama3, phi4-mini, not 'xml'"),
        ("@stop \"open", 1, 7, "@stop must be text whose quoted strings are closed"),
        ("@stop \"\"", 1, 7, "@stop must be a list of non-empty strings"),
        ("@plugin", 1, 8, "@plugin needs a value"),
        ("user: Hi\n@model other", 2, 1, "@model must come before the first turn"),
        ("expect: contains \"x\"", 1, 1, "an expectation must directly follow the user turn"),
        ("user: Hi\nassistant: Hello\nexpect: contains \"x\"", 3, 1, "follows an assistant turn written in the script"),
        ("user: Hi\n@temperature 0\nexpect: contains \"x\"", 3, 1, "an expectation must directly follow the user turn"),
        ("assistant: Hello", 1, 1, "an assistant turn must directly follow the user turn it answers"),
        ("user: Hi\nexpect: contain \"x\"", 2, 9, "unknown check 'contain'"),
        ("user: Hi\nexpect:", 2, 8, "expect: needs a check"),
        ("user: Hi\nexpect: regex \"(\"", 2, 16, "this regular expression does not compile: this group is never closed"),
        ("user: Hi\nexpect: regex \"\\n\\u{E9}(a)\\\\1\"", 2, 27,
         "this regular expression does not compile: backreferences (\\1) are not supported: the pattern must match in "
            + "linear time (at offset 5)"),
        ("user: Hi\nexpect: regex 🌊é(?=b)", 2, 17, "lookaheads ((?=) are not supported"),
        ("user: Hi\nexpect: not regex \"a{9999}\"", 2, 21, "{9999} repeats of a make the pattern too large"),
        ("user: Hi\nexpect: length about 10", 2, 16, "expected a bound such as <= 200"),
        ("user: Hi\nexpect: length 10..2", 2, 16, "the range 10..2 is empty"),
        ("user: Hi\nexpect: contains \"x\" extra", 2, 22, "unexpected text after the check"),
        ("user: Hi\nexpect: contains \"bad \\q\"", 2, 23, "unknown escape \\q"),
        ("user: Hi\nexpect-lua:", 2, 12, "expect-lua needs a Lua expression"),
        ("user: \"\"\"\nnever closed", 1, 7, "this block is never closed"),
        ("@generated stop=\"eos\" tokens=1", 1, 12, "@generated marks a recorded reply and must come right after its assistant turn"),
        ("user: a\nassistant: b\n@generated stop=\"eos\"", 3, 12, "@generated needs stop=\"…\" and tokens=N"),
        ("@format yaml\n", 1, 9, "@format is json or text, not 'yaml'"),
        ("@tolerance -0.5", 1, 12, "@tolerance is a number of logits from 0 (exact) to 10, not '-0.5'"),
        ("@tolerance close", 1, 12, "@tolerance is a number of logits from 0 (exact) to 10, not 'close'"),
        ("@format\n", 1, 8, "@format is json or text, not ''"),
        ("@json-schema\n", 1, 13, "@json-schema needs a value"),
        ("@grammar   \n", 1, 12, "@grammar needs a value"),
        ("user: Hi\nexpect: json-schema\n", 2, 20, "expected the JSON schema's file"),
        ("user: Hi\nexpect: jsonn\n", 2, 9, "unknown check 'jsonn'; use contains, equals, starts-with"),
        ("user: Hi\nexpect: ttft <= 500\n", 2, 14, "expected a bound such as <= 200, >= 3, == 8 or 10..200, then ms"),
        ("user: Hi\nexpect: rate >= 10 tokens\n", 2, 14, "expected a bound such as <= 200, >= 3, == 8 or 10..200, then tok/s"),
        ("user: Hi\nexpect: contains-any\n", 2, 21, "expected the texts to look for"),
        ("user: Hi\nexpect: equals\n", 2, 15, "expected the text to compare with"),
        ("user: Hi\nexpect: sentences many\n", 2, 19, "expected a bound"),
        // Tool turns: a call's JSON, one result per call, in their place.
        ("tool-call: {\"name\": \"f\"}", 1, 1, "a tool call is the assistant's"),
        ("user: Hi\ntool-call: f(2)", 2, 12, "tool-call: is the call's JSON, {\"name\": …, \"arguments\": {…}}: the tool call is not a JSON object"),
        ("user: Hi\ntool-call: {\"name\": \"no spaces\"}", 2, 12, "a tool's name is 1 to 64 letters"),
        ("user: Hi\ntool-call: {\"name\": \"f\", \"arguments\": [1]}", 2, 12, "the arguments of the call of f are not a JSON object"),
        ("user: Hi\ntool: 4", 2, 1, "a tool: turn is the result of a call"),
        ("user: Hi\ntool-call: {\"name\": \"f\"}\ntool: 1\ntool: 2", 4, 1, "a tool: turn is the result of a call"),
        ("user: Hi\ntool-call: {\"name\": \"f\"}\ntool-call: {\"name\": \"g\"}\ntool: 1\nuser: Bye", 5, 1,
         "the tool calls above have 1 of their 2 results"),
        ("user: Hi\ntool-call: {\"name\": \"f\"}\nexpect: tool-call f", 3, 1, "the tool calls above have 0 of their 1 results"),
        ("user: Hi\ntool-call: {\"name\": \"f\"}", 2, 1, "the tool calls above have 0 of their 1 results"),
        ("user: Hi\ntool-call: {\"name\": \"f\"}\ntool: 1\nassistant: done\n@generated stop=\"eos\" tokens=3 rounds=2", 5, 32,
         "rounds is how many of the 1 rounds of tool calls above the reply made, not 2"),
        ("user: Hi\nexpect: tool-call no way", 2, 19, "a tool's name is 1 to 64 letters"),
        ("user: Hi\nexpect: tool-args {\"type\": \"object\", \"multipleOf\": 2}", 2, 19,
         "this schema is not one Tide can check: (root): unsupported keyword 'multipleOf'"),
        ("user: Hi\nexpect: tool-rounds some", 2, 21, "expected a bound"),
        ("user: Hi\nexpect: perplexity five", 2, 20, "expected a bound such as <= 20, < 20, >= -2.5, > -2.5 or 1.5..20"),
        ("user: Hi\nexpect: mean-logprob -1..-3", 2, 22, "the range -1..-3 is empty"),
        ("user: Hi\nexpect: perplexity < inf", 2, 20, "expected a bound such as"),
        // Once an index past the end of the empty bound.
        ("user: Hi\nexpect: mean-logprob", 2, 21, "expected a bound such as"),
        ("user: Hi\nexpect: similar Paris >= 0.8", 2, 17, "similar needs the text to compare with, quoted, then a bound"),
        ("user: Hi\nexpect: similar \"Paris\" >= 1.5", 2, 25, "a similarity is a cosine, from -1 to 1: >= 1.5 is out of that range"),
        ("user: Hi\nexpect: similar \"Paris\"", 2, 24, "expected a bound such as"),
        ("user: Hi\nexpect: judge", 2, 14, "expected the rubric the reply must meet"),
        ("user: Hi\n@verdict pass \"a\" \"b\"", 2, 10, "@verdict records a judge's verdict on a recorded reply"),
        ("user: Hi\nassistant: Yo\n@generated stop=eos tokens=1\n@verdict maybe \"a\" \"b\"", 4, 10, "@verdict is pass or fail"),
        ("user: Hi\nassistant: Yo\n@generated stop=eos tokens=1\n@verdict pass \"a\"", 4, 18, "expected the judge's reason, quoted"),
        ("user: Hi\n@judge other", 2, 1, "@judge must come before the first turn"),
        ("user: Hi\nexpect: similar-to-recorded -2..0.5", 2, 29, "a similarity is a cosine, from -1 to 1: -2..0.5 is out of that range"),
        // Found by fuzzing: the largest number after > overflowed (SIGILL) in every bound.
        ("user: Hi\nexpect: words > 9223372036854775807", 2, 15, "nothing is longer than 9223372036854775807"),
        ("user: Hi\nexpect: not tokens > 9223372036854775807", 2, 20, "nothing is longer than 9223372036854775807"),
        ("user: Hi\nexpect: sentences > 9223372036854775807", 2, 19, "nothing is longer than 9223372036854775807"),
        ("user: Hi\nexpect: tool-rounds > 9223372036854775807", 2, 21, "nothing is longer than 9223372036854775807"),
        ("user: Hi\nexpect: ttft > 9223372036854775807 ms", 2, 14, "nothing is longer than 9223372036854775807"),
        ("user: Hi\nexpect: not rate > 9223372036854775807 tok/s", 2, 18, "nothing is longer than 9223372036854775807"),
        ("user: Hi\nexpect: length > 9223372036854775808", 2, 16, "with a whole number ≥ 0"),
        ("user: Hi\nexpect: length 0..9223372036854775808", 2, 16, "expected a bound such as"),
    ])
    func errorsSayWhereAndWhat(text: String, line: Int, column: Int, message: String) {
        do {
            _ = try ConversationScript(parsing: text)
            Issue.record("parsed without error: \(text)")
        } catch {
            #expect(error.line == line, "\(error)")
            #expect(error.column == column, "\(error)")
            #expect(error.message.contains(message), "\(error)")
            #expect(error.lineText == text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)[line - 1])
        }
    }

    @Test func theReportShowsFileLineColumnAndACaret() {
        var error = ScriptParseError(line: 3, column: 14, message: "@temperature must be a number, not 'hot'",
                                     lineText: "@temperature hot")
        error.file = "Conversations/capitals.tide"
        #expect(error.description == """
            Conversations/capitals.tide:3:14: @temperature must be a number, not 'hot'
                @temperature hot
                             ^
            """)
    }

    @Test func invalidUTF8IsReportedWithItsLine() {
        let bytes = Array("user: fine\nuser: caf".utf8) + [0xC3, 0x28] + Array("\n".utf8)
        do {
            _ = try ConversationScript(bytes: bytes)
            Issue.record("invalid UTF-8 parsed")
        } catch {
            #expect(error.line == 2 && error.column == 10)
            #expect(error.message.contains("not valid UTF-8"))
        }
    }
}
