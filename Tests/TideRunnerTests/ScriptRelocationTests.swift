import Foundation
import Testing
import TideLua
@testable import TideRunner
import TideScript
import TideTestSupport

/// A transcript written to another folder names every file its script named from there, so it
/// replays as it is: schemas, grammars, `expect: tool-args` files and plugins, by path or by a
/// name found beside the script.
@Suite struct ScriptRelocationTests {
    @Test func transcriptsWrittenElsewhereStillFindTheirFiles() throws {
        let project = try ScratchPlugins.folder([:])
        let scripts = project.appendingPathComponent("scripts"), out = project.appendingPathComponent("out/today")
        for folder in [scripts.appendingPathComponent("schemas"), project.appendingPathComponent("Plugins"), out] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        try ScratchPlugins.tag.write(to: scripts.appendingPathComponent("beside.lua"), atomically: true, encoding: .utf8)
        try ScratchPlugins.tag.write(to: project.appendingPathComponent("Plugins/shared.lua"), atomically: true, encoding: .utf8)
        let origin = scripts.appendingPathComponent("calc.tide").path
        let script = try ConversationScript(parsing: """
            @json-schema schemas/city.json
            @grammar /etc/tide/yes-no.gbnf
            @plugin beside tag="a b"
            @plugin shared
            @plugin ./mine.lua
            @plugin capitals
            user: Describe Rome.
            expect: json-schema ./schemas/city.json
            expect: tool-args schemas/args.json
            expect: tool-args {"type": "object"}

            """)
        let moved = ScriptFiles.relocated(script, from: origin, to: out)
        #expect(moved.printed() == """
            @json-schema ../../scripts/schemas/city.json
            @grammar /etc/tide/yes-no.gbnf
            @plugin ../../scripts/beside.lua tag="a b"
            @plugin ../../Plugins/shared.lua
            @plugin ../../scripts/mine.lua
            @plugin capitals
            user: Describe Rome.
            expect: json-schema ../../scripts/schemas/city.json
            expect: tool-args ../../scripts/schemas/args.json
            expect: tool-args {"type": "object"}

            """)
        #expect(ScriptFiles.relocated(script, from: origin, to: scripts.appendingPathComponent(".")) == script)
        // A folder whose own lookup finds the same plugin files needs no path for them.
        let sibling = project.appendingPathComponent("transcripts")
        let beside = ScriptFiles.relocated(script, from: origin, to: sibling).printed()
        #expect(beside.contains("@plugin ../scripts/beside.lua tag=\"a b\"\n@plugin shared\n"), "\(beside)")
    }
}
