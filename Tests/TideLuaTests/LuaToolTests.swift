import Foundation
import ShippedPlugins
import Testing
import TideFormat
import TideTestSupport
import TideCore
@testable import TideLua

/// Tools written in Lua: what a plugin declares, how `run` is called and what the model is
/// told when it returns something odd, fails or runs past its limits.
@Suite struct LuaToolTests {
    func plugin(_ tools: String, limits: LuaLimits = LuaLimits()) throws -> LuaPlugin {
        try LuaPlugin(source: "return { name = \"t\", tools = { \(tools) } }", path: "t.lua", limits: limits)
    }

    func call(_ plugin: LuaPlugin, _ name: String, _ arguments: String = "{}") throws -> String {
        try plugin.runTool(ToolCall(id: "call_1", name: name, arguments: arguments))
    }

    @Test func aToolIsDeclaredWithItsSchemaAndRunOnItsArguments() throws {
        let tools = try plugin("""
            add = { description = "Add two numbers.",
                    parameters = { type = "object", properties = { a = { type = "number" }, b = { type = "number" } }, required = { "a", "b" } },
                    run = function(args) return args.a + args.b end },
            echo = { run = function(args) return { got = args, list = { 1, 2 } } end },
            """)
        #expect(tools.tools.map(\.name) == ["add", "echo"])
        #expect(tools.tools[0].description == "Add two numbers.")
        #expect(tools.tools[0].parameters == #"{"properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"],"type":"object"}"#)
        #expect(tools.tools[1].parameters == #"{"type":"object"}"#)
        #expect(try call(tools, "add", #"{"a": 2, "b": 3.5}"#) == "5.5")
        // Arguments a server's model wrote against the schema are not run: the model is told why.
        #expect(throws: ToolFailure("the arguments do not match the parameters of add: (root): missing required property 'b'")) {
            try call(tools, "add", #"{"a": 2}"#)
        }
        // JSON's null is Lua's nil: a member that is null is absent.
        #expect(try call(tools, "echo", #"{"x": [true, "y"], "z": null}"#) == #"{"got":{"x":[true,"y"]},"list":[1,2]}"#)
    }

    @Test(arguments: [
        ("x = { run = function() error('no such city', 0) end }", "no such city"),
        ("x = { run = function() return function() end end }", "tool x returned a function, which cannot be given to the model"),
        ("x = { run = function() while true do end end }", "the tool was stopped: "),
        ("x = { run = function() local t = {} for i = 1, 1e9 do t[i] = i end end }", "the tool was stopped: "),
        ("x = { run = function() local t = { n = 1 } t.self = t return t end }",
         "tool x's result holds a cycle (a table that holds itself) at result.self, which JSON cannot hold"),
        ("x = { run = function() local t = { 1 } for i = 1, 20 do t = { t } end return t end }",
         "tool x's result holds a table nested deeper than 16 levels at result[1]"),
        // Ten levels each holding one table ten times: 10^10 values if copied whole, a bounded copy here.
        ("x = { run = function() local t = { 1 } for i = 1, 10 do t = { t, t, t, t, t, t, t, t, t, t } end return t end }",
         "tool x's result holds more than 1048576 values at result, which JSON cannot hold"),
    ])
    func aFailureIsTheResultNotACrash(tool: String, message: String) throws {
        let failing = try plugin(tool, limits: LuaLimits(instructions: 1_000_000, memoryBytes: 8 << 20, time: .seconds(1)))
        do {
            _ = try call(failing, "x")
            Issue.record("the tool did not fail")
        } catch {
            #expect("\(error)".hasPrefix(message), "\(error)")
            #expect(!"\(error)".contains("stack traceback"), "\(error)")
        }
    }

    @Test(arguments: [
        ("tools = 3", "tools must be a table of tools by name"),
        ("tools = { ['bad name'] = { run = print } }", "tools: a tool's name is 1 to 64 letters"),
        ("tools = { x = { description = 'no run' } }", "tools.x.run must be a function"),
        ("tools = { x = { run = print, schema = {} } }", "tools.x has unknown fields schema"),
        ("tools = { x = { run = print, parameters = { type = 'array' } } }",
         #"tools.x.parameters: its type must be "object" (the arguments are an object), not "array"; write it as a table"#),
        ("tools = { x = { run = print, parameters = { properties = {} } } }", #"tools.x.parameters: it must say "type": "object""#),
        ("tools = { x = { run = print, parameters = { type = 'object', properties = { n = { type = 'integer', multipleOf = 2 } } } } }",
         "tools.x: the parameters of x cannot be enforced: /properties/n: unsupported keyword 'multipleOf'"),
    ])
    func aBadDeclarationIsRefusedWhenThePluginLoads(fields: String, message: String) {
        do {
            _ = try LuaPlugin(source: "return { name = 't', \(fields) }", path: "t.lua")
            Issue.record("loaded")
        } catch {
            #expect("\(error)".contains(message), "\(error)")
        }
    }

    @Test(arguments: [
        ("(2 + 3) * 4.5", "22.5"), ("2^10", "1024"), ("-3 + 10 % 4", "-1"), ("sqrt(2)", "1.41421356237"),
        ("max(1, 7, 3) / 2", "3.5"), ("12.5 * 3400 / 100", "425"), ("round(pi * 100)", "314"), ("1e3 + .5", "1000.5"),
    ])
    func theCalculatorEvaluates(expression: String, value: String) throws {
        let calculator = try LuaPlugin(source: ShippedPlugins.source(of: "calculator")!, path: "calculator.lua")
        #expect(try call(calculator, "calculate", "{\"expression\": \"\(expression)\"}") == value)
    }

    @Test(arguments: [(#"{"value": 10, "from": "km", "to": "mi"}"#, "6.213711922 mi"),
                      (#"{"value": 100, "from": "C", "to": "F"}"#, "212 F"), (#"{"value": -40, "from": "F", "to": "C"}"#, "-40 C"),
                      (#"{"value": 0, "from": "K", "to": "C"}"#, "-273.15 C"), (#"{"value": 1, "from": "GiB", "to": "MB"}"#, "1073.741824 MB"),
                      (#"{"value": 2, "from": "cup", "to": "ml"}"#, "473.176473 ml"), (#"{"value": 90, "from": "km/h", "to": "m/s"}"#, "25 m/s")])
    func theUnitsPluginConverts(arguments: String, value: String) throws {
        let units = try LuaPlugin(source: ShippedPlugins.source(of: "units")!, path: "units.lua")
        #expect(try call(units, "convert", arguments) == value)
    }

    /// Kinds that do not mix, and units the schema does not list, are errors the model is told;
    /// a local model cannot name such a unit at all (the units are the schema's enum).
    @Test func theUnitsPluginRefusesWhatItCannotConvert() throws {
        let units = try LuaPlugin(source: ShippedPlugins.source(of: "units")!, path: "units.lua")
        #expect(throws: ToolFailure("cannot convert kg to m: a mass is not a length")) {
            try call(units, "convert", #"{"value": 1, "from": "kg", "to": "m"}"#)
        }
        let unknown = #expect(throws: ToolFailure.self) { try call(units, "convert", #"{"value": 1, "from": "parsec", "to": "m"}"#) }
        #expect(unknown?.description.hasPrefix("the arguments do not match the parameters of convert: /from:") == true, "\(String(describing: unknown))")
        let schema = try JSONValue(parsing: try #require(units.tools.first).parameters)
        guard case .object(let root) = schema, case .object(let properties)? = root["properties"],
              case .object(let from)? = properties["from"], case .array(let names)? = from["enum"] else {
            Issue.record("the units are the schema's enum: \(schema.text)")
            return
        }
        #expect(names.count == 49 && names.contains(.string("m/s")) && names.contains(.string("in")))
    }

    /// The clock's time is now, at the offset asked for; an offset the schema's pattern refuses
    /// is an error the model is told.
    @Test func theClockTellsTheTimeAtAnOffset() throws {
        let clock = try LuaPlugin(source: ShippedPlugins.source(of: "clock")!, path: "clock.lua")
        let utc = try call(clock, "current_time")
        #expect(utc.wholeMatch(of: /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \((Sun|Mon|Tues|Wednes|Thurs|Fri|Satur)day\), UTC\+00:00/) != nil, "\(utc)")
        let year = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date()).year!
        #expect(utc.hasPrefix("\(year)-") || utc.hasPrefix("\(year + 1)-"))
        #expect(try call(clock, "current_time", #"{"utc_offset": "+05:30"}"#).hasSuffix("UTC+05:30"))
        #expect(throws: ToolFailure.self) { try call(clock, "current_time", #"{"utc_offset": "+25:00"}"#) }
        let east = try LuaPlugin(spec: PluginSpec(parsing: "clock utc_offset=-08:00"),
                                 locator: PluginLocator(directories: []))
        #expect(try call(east, "current_time").hasSuffix("UTC-08:00"))
    }

    @Test(arguments: [("1 / 0", "division by zero"), ("2 +", "the expression ends too soon, at 4: a number or '(' should come next"), ("", "the expression is empty: write the arithmetic to evaluate, such as 2 + 2"), ("os.exit()", "unexpected '.' at 3"), ("load(1)", "unknown name 'load' at 1"),
                      ("(1", "expected ')' at 3"), ("3 $ 4", "unexpected '$' at 3")])
    func theCalculatorSaysWhatIsWrong(expression: String, message: String) throws {
        let calculator = try LuaPlugin(source: ShippedPlugins.source(of: "calculator")!, path: "calculator.lua")
        do {
            _ = try call(calculator, "calculate", "{\"expression\": \"\(expression)\"}")
            Issue.record("evaluated")
        } catch {
            #expect("\(error)" == message)
        }
    }
}

/// A plugin's `on_prompt` sees roles and texts only: the tool calls of the turn's messages
/// survive its edits, so the next round's prompt still holds them.
@Suite struct ToolTurnsThroughPromptHooksTests {
    @Test func callsSurviveAnOnPromptHook() async throws {
        let backend = ScriptedBackend { messages in
            messages.last?.content.contains("<tool_response>") == true
                ? ["Five."] : ["<tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\": 2}}\n</tool_call>"]
        }
        backend.toolCallReader = HermesToolCalls()
        let persona = try LuaPlugin(spec: PluginSpec(parsing: "persona persona=terse"))
        let session = ChatSession(backend: backend, hooks: [persona, FixedTool()])
        let reply = try await session.reply(to: "Add 2 and 3.").collect()
        #expect(reply.text == "Five." && reply.toolResults.map(\.content) == ["5"])
        let second = try #require(backend.receivedPrompts.last)
        #expect(second.contains { $0.role == .assistant && $0.content.contains("<tool_call>\n{\"name\": \"add\"") }, "\(second)")
        #expect(second.last?.content == "<tool_response>\n5\n</tool_response>")
    }
}
