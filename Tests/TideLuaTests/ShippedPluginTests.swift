import Foundation
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

    func reply(_ specs: [String], to question: String, maxTokens: Int = 120) async throws -> CollectedReply {
        try await PluginFixtures.session(specs.map(plugin), maxTokens: maxTokens).reply(to: question).collect()
    }

    @Test func everyShippedPluginLoadsAndStartsWithItsDocumentation() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter { $0.hasSuffix(".lua") }
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
        let result = try await reply(["stop-after-sentences sentences=1"], to: "Describe the sea.")
        #expect(result.summary?.stopReason == .hook(name: "stop-after-sentences", reason: "1 sentence"))
        #expect(result.text.hasSuffix("."))
        #expect(result.text.filter { ".!?".contains($0) }.count == 1)
    }

    @Test func stopOnPattern() async throws {
        let result = try await reply(["stop-on-pattern pattern=Paris"], to: "What is the capital of France?")
        #expect(result.summary?.stopReason == .hook(name: "stop-on-pattern", reason: "matched Paris"))
        #expect(result.text.hasSuffix("Paris"))
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
        let result = try await reply(["word-budget words=8"], to: "Explain how tides work.")
        #expect(result.summary?.stopReason == .hook(name: "word-budget", reason: "8 words"))
        #expect(result.text.split(whereSeparator: \.isWhitespace).count == 8)
    }

    /// A banned phrase is taken back as it forms and the model chooses again: the reply never
    /// shows it, not even in part, and every rewind is counted.
    @Test func banPhrases() async throws {
        let free = try await reply([], to: "What is the capital of France?", maxTokens: 40)
        #expect(free.text.contains("Paris"))
        for phrases in ["Paris", "paris,London", "Par"] {
            let banned = try await reply(["ban-phrases phrases=\(phrases)"], to: "What is the capital of France?", maxTokens: 40)
            #expect(banned.failures.isEmpty)
            #expect(!banned.texts.joined().lowercased().contains("par"), "\(phrases): \(banned.text)")
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
        let free = try await reply([], to: prompt, maxTokens: 60)
        let filtered = try await reply(["ban-phrases slop=true"], to: prompt, maxTokens: 60)
        let text = filtered.texts.joined().lowercased()
        for phrase in ["tapestry", "bustling city", "a testament to", "delve into"] { #expect(!text.contains(phrase), "\(filtered.text)") }
        #expect(free.text.lowercased().contains("tapestry") || free.text.lowercased().contains("bustling"), "the prompt draws slop: \(free.text)")
        let plain = try await reply([], to: "What is 2 + 2?", maxTokens: 20)
        let unchanged = try await reply(["ban-phrases slop=true"], to: "What is 2 + 2?", maxTokens: 20)
        #expect(unchanged.text == plain.text)
        #expect(unchanged.summary?.statistics.rewinds == 0)
    }

    @Test func banRegex() async throws {
        let question = "In which year did the Berlin Wall fall?"
        let free = try await reply([], to: question, maxTokens: 40)
        #expect(free.text.contains("1989"))
        let banned = try await reply(["ban-regex patterns=%d"], to: question, maxTokens: 40)
        #expect(banned.failures.isEmpty)
        let shown = banned.texts.joined()
        #expect(shown.allSatisfy { !$0.isNumber }, "\(shown)")
        let bad = try await reply(["ban-regex patterns=[a"], to: question, maxTokens: 4)
        #expect(bad.failures.first?.message.contains("is not a Lua pattern") == true, "\(bad.failures)")
    }

    @Test func preferWords() async throws {
        let question = "Describe a summer day in one sentence."
        let plain = try await reply([], to: question, maxTokens: 40)
        #expect(!plain.text.lowercased().contains("ocean"))
        let nudged = try await reply(["prefer-words words=Ocean bias=4"], to: question, maxTokens: 40)
        #expect(nudged.text.lowercased().contains("ocean"))
        #expect(nudged.text.split(separator: " ").count > 8, "a gentle bias keeps the sentence going: \(nudged.text)")
        // A word the tokenizer splits is finished once started.
        let rare = try await reply(["prefer-words words=kaleidoscope bias=8"], to: question, maxTokens: 40)
        #expect(rare.text.lowercased().contains("kaleidoscope"), "\(rare.text)")
    }

    @Test func persona() async throws {
        let pirate = try await reply(["persona persona=pirate"], to: "Hello, who are you?", maxTokens: 12)
        #expect(pirate.text.lowercased().contains("aye") || pirate.text.lowercased().contains("arr"))
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
        let plain = try await reply([], to: question, maxTokens: 40)
        #expect(plain.text.contains("*"), "\(plain.text)")
        let stripped = try await reply(["strip-markdown"], to: question, maxTokens: 40)
        #expect(!stripped.text.contains("*"))
        #expect(stripped.summary?.rawText == plain.text)

        let code = try await reply(["strip-markdown"], to: "Show me Python code to print hello, in a markdown code block.",
                                   maxTokens: 30)
        #expect(!code.text.contains("`"))
        #expect(code.text.contains("# Python code"))
    }

    @Test func redactEmailsAndPhoneNumbers() async throws {
        let emails = "Write the email address jane.doe@example.com three times."
        let plain = try await reply([], to: emails, maxTokens: 40)
        #expect(plain.text.contains("@example.com"))
        let redacted = try await reply(["redact-emails"], to: emails, maxTokens: 40)
        #expect(!redacted.text.contains("@"))
        #expect(redacted.text.contains("[redacted]"))

        let phone = "Repeat this sentence exactly: You can reach me at jane.doe@example.com or on 555-123-4567."
        #expect(try await reply([], to: phone, maxTokens: 60).text.contains("555-123-4567"))
        let masked = try await reply(["redact-emails mask=XXX"], to: phone, maxTokens: 60)
        #expect(!masked.text.contains("555"))
        #expect(masked.text.contains("XXX"))
    }

    @Test func censorWordsMasksWholeWordsAndReleasesTheLastOne() async throws {
        let question = "Describe a rainy day with clouds."
        let plain = try await reply([], to: question, maxTokens: 12)
        #expect(plain.text.contains("clouds"))
        let censored = try await reply(["censor-words words=clouds,rainy"], to: question, maxTokens: 12)
        #expect(!censored.text.contains("clouds") && !censored.text.contains("rainy"))
        #expect(censored.text.contains("******"))
        // The word held back when the reply ended is released by the final call.
        let words = plain.text.split(separator: " ")
        #expect(censored.text.hasSuffix(String(words.last!)))
    }

    @Test func pluginsCombineInOrder() async throws {
        let result = try await reply(["persona persona=pirate", "stop-on-repetition", "word-budget words=30"],
                                     to: "Hello, who are you?", maxTokens: 200)
        #expect(result.summary?.stopReason.description.hasPrefix("plugin:") == true)
        #expect(result.failures.isEmpty)
    }
}
