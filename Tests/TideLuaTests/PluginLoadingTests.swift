import Foundation
import Synchronization
import Testing
import TideCore
import TideLua

@Suite struct PluginLoadingTests {
    @Test func metadataHooksAndTypedOptions() throws {
        let plugin = try PluginFixtures.plugin("meta", """
            local p = { name = "meta-plugin", version = "2.1", description = "Shows metadata.",
                        options = { count = 2, ratio = 0.5, loud = false, word = "hi" } }
            function p.on_token(token) end
            function p.should_stop(reply) end
            return p
            """, options: "count=5 ratio=0.25 loud=yes word='two words'")
        #expect(plugin.name == "meta-plugin")
        #expect(plugin.version == "2.1")
        #expect(plugin.summary == "Shows metadata.")
        #expect(plugin.points == [.token, .stop])
        #expect(plugin.options == ["count": .integer(5), "ratio": .number(0.25), "loud": .boolean(true),
                                   "word": .string("two words")])
    }

    @Test func specsParseWithQuotes() throws {
        let spec = try PluginSpec(parsing: #"censor-words words="a b" mask='*'"#)
        #expect(spec.name == "censor-words")
        #expect(spec.options == [.init(key: "words", value: "a b"), .init(key: "mask", value: "*")])
        #expect(throws: PluginError.self) { try PluginSpec(parsing: "x key") }
        #expect(throws: PluginError.self) { try PluginSpec(parsing: "x key='open") }
        #expect(throws: PluginError.self) { try PluginSpec(parsing: "  ") }
    }

    @Test(arguments: [
        ("return 5", "a plugin must return a table, but this file returns a number"),
        ("local p = {}", "a plugin must return a table, but this file returns nothing"),
        ("return {", "unexpected symbol near <eof>"),
        ("return { on_tokn = function() end }", "unknown hook on_tokn; hooks are on_prompt"),
        ("return { on_token = 3 }", "on_token must be a function, not a number"),
        ("return { options = { f = function() end } }", "the default of option 'f' is a function"),
        ("error('broken at load')", "broken at load"),
        ("while true do end", "instruction budget exceeded"),
    ])
    func badPluginFilesAreExplained(source: String, message: String) {
        do {
            _ = try PluginFixtures.plugin("bad", source)
            Issue.record("loaded: \(source)")
        } catch {
            #expect("\(error)".contains(message), "got: \(error)")
        }
    }

    @Test(arguments: [("count=x", "count must be a whole number, not 'x'"), ("loud=maybe", "loud must be true or false"),
                      ("colour=red", "unknown option 'colour'; it takes count, loud")])
    func badOptionValuesAreExplained(options: String, message: String) {
        do {
            _ = try PluginFixtures.plugin("opts", "return { options = { count = 1, loud = true } }", options: options)
            Issue.record("accepted \(options)")
        } catch {
            #expect("\(error)".contains(message), "got: \(error)")
        }
    }

    @Test func missingPluginsNameWhereTheyWereSought() {
        #expect(throws: PluginError.notFound("nowhere", searched: ["/nonexistent", "the shipped plugins"])) {
            try LuaPlugin(spec: PluginSpec(parsing: "nowhere"), locator: PluginLocator(directories: [URL(fileURLWithPath: "/nonexistent")]))
        }
    }
}

@Suite struct PluginHostTests {
    @Test func theTideTableExistsWhileTheFileRuns() throws {
        let lines = Mutex<[String]>([])
        let plugin = try PluginFixtures.plugin("early", """
            tide.log('loading', tide.version)
            tide.state.loaded = true
            return { name = 'early-bird' }
            """, log: { line in lines.withLock { $0.append(line) } })
        #expect(plugin.name == "early-bird")
        #expect(lines.withLock { $0 } == ["[early] loading \(tideVersion)"])
    }
}
