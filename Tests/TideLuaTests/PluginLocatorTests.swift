import Foundation
import ShippedPlugins
import Testing
import TideCore
import TideLua
import TideTestSupport

/// Where plugins are found: folders first, then the plugins compiled into the binary.
@Suite struct PluginLocatorTests {
    static let pluginsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Plugins")

    @Test func everyPluginOfTheRepositoryIsShippedAsItIs() throws {
        let all = try FileManager.default.contentsOfDirectory(atPath: Self.pluginsFolder.path).filter { $0.hasSuffix(".lua") }.sorted()
        let files = all.filter { !$0.hasSuffix("_test.lua") }
        #expect(ShippedPlugins.all.map { $0.name + ".lua" } == files,
                "Plugins/ and ShippedPlugins.all must list the same plugins (after adding one, touch Package.swift)")
        #expect(all.filter { $0.hasSuffix("_test.lua") } == files.map { $0.dropLast(4) + "_test.lua" },
                "every shipped plugin has its test file beside it (tide plugins test Plugins/), and every test file its plugin")
        for (name, source) in ShippedPlugins.all {
            let file = try String(contentsOf: Self.pluginsFolder.appendingPathComponent(name + ".lua"), encoding: .utf8)
            #expect(source == file, "\(name) is shipped as it is in Plugins/")
        }
    }

    @Test func shippedPluginsAreFoundWithNoFolderAtAll() throws {
        let locator = PluginLocator(directories: [URL(fileURLWithPath: "/nonexistent")])
        let found = try locator.locate("stop-after-sentences")
        #expect(found.origin == .shipped)
        #expect(found.path == "(shipped)/stop-after-sentences.lua")
        let plugin = try LuaPlugin(spec: PluginSpec(parsing: "stop-after-sentences sentences=3"), locator: locator)
        #expect(plugin.name == "stop-after-sentences")
        #expect(plugin.options["sentences"] == .integer(3))
        #expect(locator.pluginNames() == ShippedPlugins.all.map(\.name))
    }

    @Test func aFileInAFolderTakesPrecedenceOverTheShippedPlugin() throws {
        let folder = try ScratchPlugins.folder(["stop-after-sentences": "return { name = 'mine', version = '9' }"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let locator = PluginLocator(directories: [folder])
        let found = try locator.locate("stop-after-sentences")
        #expect(found.origin == .file(folder.appendingPathComponent("stop-after-sentences.lua")))
        #expect(try LuaPlugin(spec: PluginSpec(parsing: "stop-after-sentences"), locator: locator).version == "9")
        let listed = locator.available().filter { $0.name == "stop-after-sentences" }
        #expect(listed.map(\.origin) == [.file(folder.appendingPathComponent("stop-after-sentences.lua")), .shipped])
    }

    @Test func withoutShippedPluginsAMissingNameSaysWhereItLooked() {
        let locator = PluginLocator(directories: [URL(fileURLWithPath: "/nonexistent")], includesShipped: false)
        #expect(throws: PluginError.notFound("stop-after-sentences", searched: ["/nonexistent"])) {
            try locator.locate("stop-after-sentences")
        }
        #expect(throws: PluginError.notFound("nowhere", searched: ["/nonexistent", "the shipped plugins"])) {
            try PluginLocator(directories: [URL(fileURLWithPath: "/nonexistent")]).locate("nowhere")
        }
    }
}
