import Testing
import TideCore
import TideLua
import TidePluginHarness

/// The editor's definitions and luacheck's configuration are Lua, and declare the whole API.
@Suite struct EditorFilesTests {
    @Test func bothFilesAreLua() throws {
        let lua = try LuaState()
        try lua.compile(EditorFiles.luaLSDefinitions, chunkName: "=tide.d.lua")
        try lua.compile(EditorFiles.luacheckConfig, chunkName: "=.luacheckrc")
    }

    @Test func theDefinitionsDeclareEveryMemberAndHook() {
        let definitions = EditorFiles.luaLSDefinitions
        for member in PluginAPI.tide {
            #expect(definitions.contains(member.function == nil ? "---@field \(member.name) " : "tide.\(member.name) = nil"), "\(member.name)")
        }
        for hook in HookPoint.allCases { #expect(definitions.contains("---@field \(hook.rawValue) (\(PluginAPI.signature(of: hook)))?")) }
        for item in PluginAPI.classes { #expect(definitions.contains("---@class \(item.name)")) }
    }
}
