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
        #expect(throws: PluginSpecError.self) { try PluginSpec(parsing: "x key") }
        #expect(throws: PluginSpecError.self) { try PluginSpec(parsing: "x key='open") }
        #expect(throws: PluginSpecError.self) { try PluginSpec(parsing: "  ") }
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

    /// Found by fuzzing: a plugin that removed the global `tide` aborted the process (the host
    /// set `tide.options` outside a protected call, and Lua panicked). The host writes to its own
    /// table, raw, whatever the plugin did to the global; the plugin's hooks see what it left.
    @Test(arguments: [
        "tide = nil",
        "tide = 42",
        "setmetatable(tide, { __newindex = function() error('no writes') end, __index = function() while true do end end })",
        "setmetatable(_G, { __index = function() while true do end end, __newindex = function() error('no') end }) tide = nil",
    ])
    func whatAPluginDoesToTheGlobalTideCannotStopTheHost(setup: String) throws {
        let plugin = try PluginFixtures.plugin("rebel", "\(setup) return { name = 'rebel', options = { level = 2 } }", options: "level=3")
        #expect(plugin.name == "rebel")
        #expect(plugin.specification == "rebel level=3")
    }

    /// Arguments nested 200 deep (JSON allows 256; a server's call is not bound by the schema's
    /// shape when it leaves extra members open) need more of Lua's stack than the 20 slots it
    /// guarantees: the host makes room, level by level, instead of writing past the stack.
    @Test func deeplyNestedToolArgumentsReachTheTool() throws {
        let plugin = try PluginFixtures.plugin("deep", """
            local function depth(value) local n = 0 while type(value) == 'table' do n, value = n + 1, value[1] end return n end
            return { name = 'deep', tools = { measure = { description = 'how deep',
              parameters = { type = 'object', properties = { label = { type = 'string' } } },
              run = function(arguments) return tostring(depth(arguments.nested)) end } } }
            """)
        let nested = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        let result = try plugin.runTool(ToolCall(id: "call_1", name: "measure", arguments: #"{"label": "x", "nested": \#(nested)}"#))
        #expect(result == "200")
    }
}
