import Testing
import TideCore
import TideLua
import TideTestSupport

/// ``PluginAPI`` against a live sandbox: every global, library field and `tide` field a plugin
/// finds is declared, and nothing is declared that it does not find.
@Suite struct PluginAPITests {
    /// What a plugin finds, as `name`, `library.field` and `tide.field`, sorted.
    static let listing = """
        local plugin = { name = "listing" }
        function plugin.on_prompt()
          local names = {}
          for name, value in pairs(_G) do
            if type(value) == "table" and name ~= "_G" then
              for field in pairs(value) do names[#names + 1] = name .. "." .. tostring(field) end
            else
              names[#names + 1] = name
            end
          end
          for field in pairs(tide.model) do names[#names + 1] = "tide.model." .. field end
          table.sort(names)
          return table.concat(names, "\\n")
        end
        return plugin
        """

    @Test func everythingASandboxHoldsIsDeclaredAndNothingElse() throws {
        let plugin = try LuaPlugin(source: Self.listing, path: "listing.lua")
        plugin.attach(to: ScriptedBackend(["x"]))
        var prompt = PromptContext(messages: [ChatMessage(.user, "list")], parameters: GenerationParameters())
        guard case .answer(let text) = try plugin.onPrompt(&prompt) else {
            Issue.record("the listing plugin answers")
            return
        }
        let found = Set(text.split(separator: "\n").map(String.init))
        let declared = Set(PluginAPI.globals.filter { $0 != "_G" })
            .union(["_G"])
            .union(PluginAPI.libraries.flatMap { library, fields in fields.map { "\(library).\($0)" } })
            .union(PluginAPI.tide.map { "tide.\($0.name)" })
        let model = Set(found.filter { $0.hasPrefix("tide.model.") })
        let undeclared = found.subtracting(model).subtracting(declared).sorted(), absent = declared.subtracting(found).sorted()
        #expect(undeclared.isEmpty && absent.isEmpty, "found but not declared: \(undeclared); declared but not found: \(absent)")
        #expect(model.isSubset(of: Set(PluginAPI.model.map { "tide.model.\($0.name)" })), "\(model.sorted())")
        for removed in PluginAPI.removed { #expect(!found.contains(removed), "\(removed)") }
    }

    @Test func everyHookHasItsSignature() {
        for hook in HookPoint.allCases { #expect(PluginAPI.signature(of: hook).hasPrefix("fun(")) }
    }
}
