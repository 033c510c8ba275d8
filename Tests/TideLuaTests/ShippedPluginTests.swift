import Foundation
import Synchronization
import Testing
import TideCore
import TideLua

/// The plugins in Plugins/, each on the real model.
@Suite(.serialized) struct ShippedPluginTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Plugins")

    func plugin(_ spec: String) throws -> LuaPlugin {
        try LuaPlugin(spec: PluginSpec(parsing: spec), locator: PluginLocator(directories: [Self.folder]))
    }

    /// A greedy reply with the shipped plugins `specs`; with `saying`, the capitals fixture first
    /// makes the model's words those (then the end of the reply), on any machine.
    func reply(_ specs: [String], to question: String, saying text: String? = nil, maxTokens: Int = 120) async throws
        -> CollectedReply
    {
        let fixture = try text.map { try PluginFixtures.capitals(text: $0) }
        return try await PluginFixtures.session((fixture.map { [$0] } ?? []) + specs.map(plugin), maxTokens: maxTokens)
            .reply(to: question).collect()
    }

    @Test func everyShippedPluginLoadsAndStartsWithItsDocumentation() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter { $0.hasSuffix(".lua") && !$0.hasSuffix("_test.lua") }
        #expect(files.count >= 5)
        for file in files {
            let source = try String(contentsOf: Self.folder.appendingPathComponent(file), encoding: .utf8)
            let name = String(file.dropLast(4))
            #expect(source.hasPrefix("-- \(name): "), "\(file) must start with '-- \(name): <purpose>'")
            #expect(source.contains("-- Options:") && source.contains("-- Example:"), "\(file) documents options and an example")
            let loaded = try plugin(name)
            #expect(loaded.name == name)
        }
    }

    @Test func stopAfterSentences() async throws {
        // The words made certain, so that the reply holds two sentences on any machine.
        let result = try await reply(["stop-after-sentences sentences=1"], to: "Describe the sea.",
                                     saying: "The sea is wide and deep. It covers most of the planet.")
        #expect(result.summary?.stopReason == .hook(name: "stop-after-sentences", reason: "1 sentence"))
        #expect(result.text.hasPrefix("The sea is wide and deep.") && !result.text.contains("planet"), "\(result.text)")
    }

    @Test func stopOnPattern() async throws {
        let result = try await reply(["stop-on-pattern pattern=Paris"], to: "What is the capital of France?",
                                     saying: "The capital of France is Paris. It is on the Seine.")
        #expect(result.summary?.stopReason == .hook(name: "stop-on-pattern", reason: "matched Paris"))
        #expect(result.text == "The capital of France is Paris")
        let missing = try await reply(["stop-on-pattern"], to: "Hi", maxTokens: 4)
        #expect(missing.failures.first?.message.contains("set the pattern option") == true)
    }

    @Test func stopOnRepetition() async throws {
        // A grammar makes the reply loop, whichever words the model would have chosen.
        let session = try PluginFixtures.session([try plugin("stop-on-repetition")], maxTokens: 300)
        session.parameters.format = try ReplyFormat.grammar("root ::= line line line line+\n" + #"line ::= "the tide comes in and the tide goes out, ""#)
        let result = try await session.reply(to: "Describe the tides.").collect()
        #expect(result.summary?.stopReason.description.hasPrefix("plugin:stop-on-repetition: 3 repeats of") == true)
        #expect((result.summary?.statistics.generatedTokens ?? 300) < 300)
    }

    @Test func wordBudget() async throws {
        let result = try await reply(["word-budget words=8"], to: "Explain how tides work.",
                                     saying: "The moon pulls the sea towards it, and the earth turns beneath it every day.")
        #expect(result.summary?.stopReason == .hook(name: "word-budget", reason: "8 words"))
        #expect(result.text.split(whereSeparator: \.isWhitespace).count == 8)
    }

    /// A banned phrase is taken back as it forms and the model chooses again: the reply never
    /// shows it, not even in part, and every rewind is counted.
    @Test func banPhrases() async throws {
        // The capitals fixture makes the model write "Paris" each time it may; the plugin takes it back.
        for phrases in ["Paris", "paris,London", "Par"] {
            let banned = try await reply(["ban-phrases phrases=\(phrases)"], to: "What is the capital of France?",
                                         saying: "The capital of France is Paris.", maxTokens: 40)
            #expect(banned.failures.isEmpty)
            let shown = banned.texts.joined().lowercased()
            #expect(phrases.split(separator: ",").allSatisfy { !shown.contains($0.lowercased()) }, "\(phrases): \(banned.text)")
            #expect(banned.text.hasPrefix("The capital of France is "), "the text before the phrase stays: \(banned.text)")
            #expect(banned.summary?.statistics.rewinds ?? 0 >= 1)
        }
        // A word the model spells over several tokens is taken back from its first token.
        let question = "Spell the word cat with dashes between the letters, like c-a-t. Now do it for dog."
        let dashed = try await reply(["ban-phrases phrases=dog"], to: question, maxTokens: 30)
        #expect(!dashed.texts.joined().lowercased().contains("dog"), "\(dashed.text)")
        let missing = try await reply(["ban-phrases"], to: "Hi", maxTokens: 4)
        #expect(missing.failures.first?.message.contains("nothing to ban") == true)
    }

    /// The built-in list: a reply that would use its phrases does not, and one that would not is
    /// the same reply as without the plugin.
    @Test func banPhrasesSlopList() async throws {
        let prompt = "Write two sentences about a bustling city, using the words tapestry and vibrant."
        let slop = "The bustling city is a vibrant tapestry of life, a testament to its people."
        let filtered = try await reply(["ban-phrases slop=true"], to: prompt, saying: slop, maxTokens: 60)
        let text = filtered.texts.joined().lowercased()
        for phrase in ["tapestry", "bustling city", "a testament to", "delve into"] { #expect(!text.contains(phrase), "\(filtered.text)") }
        #expect(filtered.summary?.statistics.rewinds ?? 0 >= 1, "the slop the fixture writes is taken back")
        let plain = try await reply([], to: "What is 2 + 2?", maxTokens: 20)
        let unchanged = try await reply(["ban-phrases slop=true"], to: "What is 2 + 2?", maxTokens: 20)
        #expect(unchanged.text == plain.text)
        #expect(unchanged.summary?.statistics.rewinds == 0)
    }

    @Test func banRegex() async throws {
        let question = "In which year did the Berlin Wall fall?"
        let banned = try await reply(["ban-regex patterns=%d"], to: question, saying: "The Berlin Wall fell in 1989.", maxTokens: 40)
        #expect(banned.failures.isEmpty)
        let shown = banned.texts.joined()
        #expect(shown.hasPrefix("The Berlin Wall fell in") && shown.allSatisfy { !$0.isNumber }, "\(shown)")
        #expect(banned.summary?.statistics.rewinds ?? 0 >= 1)
        let bad = try await reply(["ban-regex patterns=[a"], to: question, maxTokens: 4)
        #expect(bad.failures.first?.message.contains("is not a Lua pattern") == true, "\(bad.failures)")
    }

    @Test func preferWords() async throws {
        // At the reply's first position every run sees the same scores: the plugin adds its bias
        // to the first token of each spelling of the word, whichever word the model would pick.
        func firstScore(of spelling: String, with specs: [String]) async throws -> Double {
            let lines = Mutex<[String]>([])
            let probe = try PluginFixtures.plugin("probe", """
                return { on_logits = function(view, reply)
                  if reply.tokens > 0 then return end
                  -- Raised far above the rest, the token is the best: its score, less the raise.
                  local id = tide.tokenize("\(spelling)")[1]
                  view:bias(id, 1000)
                  local best = view:top(1)[1]
                  if best.id == id then tide.log(best.logit - 1000) end
                end }
                """, log: { line in lines.withLock { $0.append(line) } })
            _ = try await PluginFixtures.session(try specs.map(plugin) + [probe], maxTokens: 1)
                .reply(to: "Describe a summer day in one sentence.").collect()
            let line = try #require(lines.withLock { $0 }.first)
            return try #require(Double(line.dropFirst("[probe] ".count)), "\(line)")
        }
        for spelling in ["Ocean", " ocean", " Ocean"] {
            let plain = try await firstScore(of: spelling, with: [])
            let nudged = try await firstScore(of: spelling, with: ["prefer-words words=Ocean bias=4"])
            #expect(abs(nudged - plain - 4) < 1e-3, "\(spelling): \(plain) → \(nudged)")
        }
        // A word the tokenizer splits is finished once started (a bias that makes the start certain).
        let rare = try await reply(["prefer-words words=kaleidoscope bias=30"], to: "Describe a summer day in one sentence.", maxTokens: 40)
        #expect(rare.text.lowercased().contains("kaleidoscope"), "\(rare.text)")
    }

    @Test func persona() async throws {
        let systems = Mutex<[String]>([])
        let seen = try PluginFixtures.plugin("system-seen", """
            return { on_prompt = function(prompt) tide.log(prompt.messages[1].content) end }
            """, log: { line in systems.withLock { $0.append(line) } })
        _ = try await PluginFixtures.session([try plugin("persona persona=pirate"), seen], maxTokens: 2).reply(to: "Hello, who are you?").collect()
        #expect(systems.withLock { $0 } == ["[system-seen] You are a jolly pirate. Answer every question in pirate speak, with plenty of 'Arr'."])
        // A long system prompt of one's own reaches the model: the prompt grows by its length.
        let plain = try await reply([], to: "Hello!", maxTokens: 2)
        let long = "You are a lighthouse keeper on a small rocky island far out at sea, and you answer like one."
        let custom = try await reply(["persona system='\(long)'"], to: "Hello!", maxTokens: 2)
        #expect((custom.summary?.statistics.promptTokens ?? 0) > (plain.summary?.statistics.promptTokens ?? 0) + 10)
        let unknown = try await reply(["persona persona=wizard"], to: "Hello!", maxTokens: 4)
        #expect(unknown.failures.first?.message.contains("unknown persona 'wizard'; choose one of pirate, poet, shakespeare, teacher, terse") == true)
    }

    @Test func stripMarkdown() async throws {
        let question = "Repeat after me: **Tides** are *big*."
        let stripped = try await reply(["strip-markdown"], to: question, saying: "**Tides** are *big*.", maxTokens: 40)
        #expect(stripped.text == "Tides are big.")
        #expect(stripped.summary?.rawText == "**Tides** are *big*.")

        let block = "Here it is:\n```python\n# Python code\nprint(\"hello\")\n```"
        let code = try await reply(["strip-markdown"], to: "Show me Python code to print hello, in a markdown code block.",
                                   saying: block, maxTokens: 30)
        #expect(!code.text.contains("`"))
        #expect(code.text.contains("# Python code\nprint(\"hello\")"), "\(code.text)")
    }

    @Test func redactEmailsAndPhoneNumbers() async throws {
        let emails = "Write the email address jane.doe@example.com three times."
        let redacted = try await reply(["redact-emails"], to: emails,
                                       saying: "jane.doe@example.com, jane.doe@example.com, jane.doe@example.com", maxTokens: 40)
        #expect(redacted.text == "[redacted], [redacted], [redacted]", "\(redacted.text)")

        let sentence = "You can reach me at jane.doe@example.com or on 555-123-4567."
        let masked = try await reply(["redact-emails mask=XXX"], to: "Repeat this sentence exactly: " + sentence,
                                     saying: sentence, maxTokens: 60)
        #expect(!masked.text.contains("555") && !masked.text.contains("@"), "\(masked.text)")
        #expect(masked.text.hasPrefix("You can reach me at XXX"), "\(masked.text)")
    }

    @Test func censorWordsMasksWholeWordsAndReleasesTheLastOne() async throws {
        let question = "Describe a rainy day with clouds."
        let censored = try await reply(["censor-words words=clouds,rainy"], to: question,
                                       saying: "A rainy day brings grey clouds over the hills", maxTokens: 12)
        // The word held back when the reply ended ("hills") is released by the final call.
        #expect(censored.text == "A ***** day brings grey ****** over the hills", "\(censored.text)")
    }

    @Test func pluginsCombineInOrder() async throws {
        // The words made certain (40 of them), so that the budget ends the reply on any machine.
        let result = try await reply(["persona persona=pirate", "stop-on-repetition", "word-budget words=30"],
                                     to: "Hello, who are you?", saying: Array(repeating: "Ahoy matey, I sail the seven seas.", count: 6)
                                        .joined(separator: " "), maxTokens: 200)
        #expect(result.summary?.stopReason.description.hasPrefix("plugin:") == true)
        #expect(result.failures.isEmpty)
    }
}
