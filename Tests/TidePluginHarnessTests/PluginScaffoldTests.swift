import Foundation
import Testing
import TideCore
import TideLua
import TidePluginHarness

/// `tide plugins new`: the plugin written loads, and its test file passes against it, for every
/// hook alone and all of them together.
@Suite struct PluginScaffoldTests {
    static let cases: [[HookPoint]] = HookPoint.allCases.map { [$0] } + [HookPoint.allCases, []]

    @Test(arguments: cases)
    func theTestWrittenPassesAgainstThePluginWritten(hooks: [HookPoint]) async throws {
        let scaffold = PluginScaffold(name: "fresh-plugin", hooks: hooks)
        let folder = try PluginTestFileTests.folder(["fresh-plugin.lua": scaffold.plugin, "fresh-plugin_test.lua": scaffold.test])
        let loaded = try LuaPlugin(source: scaffold.plugin, path: folder.appendingPathComponent("fresh-plugin.lua").path)
        #expect(loaded.points == Set(hooks.isEmpty ? PluginScaffold.defaultHooks : hooks))
        #expect(loaded.options == ["word": .string("done")])
        var file = PluginTestFile(path: folder.appendingPathComponent("fresh-plugin_test.lua").path)
        file.locator = PluginLocator(directories: [folder])
        let report = await file.run()
        #expect(report.failure == nil)
        #expect(report.results.count == (hooks.isEmpty ? 1 : hooks.count) + 1)
        for result in report.results { #expect(result.outcome == .passed, "\(result.name): \(result.outcome)") }
        #expect(scaffold.plugin.hasPrefix("-- fresh-plugin: "), "a header comment first")
    }

    @Test func namesAndHooksAreReadAsTheCommandLineWritesThem() {
        #expect(PluginScaffold.problem(withName: "stop-on-code") == nil)
        #expect(PluginScaffold.problem(withName: "9lives") != nil)
        #expect(PluginScaffold.problem(withName: "a/b") != nil)
        #expect(PluginScaffold.problem(withName: "x_test")?.contains("test file") == true)
        #expect(PluginScaffold.hook(named: "stop") == .stop)
        #expect(PluginScaffold.hook(named: "should_stop") == .stop)
        #expect(PluginScaffold.hook(named: "tool_call") == .toolCall)
        #expect(PluginScaffold.hook(named: "on_token") == .token)
        #expect(PluginScaffold.hook(named: "nope") == nil)
    }
}
