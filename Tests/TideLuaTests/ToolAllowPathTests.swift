import Foundation
import Testing
import TideCore
import TideLua

/// The tool-allow plugin's `folder`, on a real folder with symbolic links: it decides on what a
/// tool would open — every string at any depth, in every spelling a server may decode, resolved
/// as the system resolves it — and refuses when it cannot be sure. And the host functions it
/// stands on, `tide.realpath` and `tide.nfkc`.
@Suite struct ToolAllowPathTests {
    /// A scratch tree:
    ///
    ///     ROOT/folder/inside.txt
    ///     ROOT/folder/sub/
    ///     ROOT/folder/link      -> ../outside   (a link out)
    ///     ROOT/folder/dangling  -> ../outside/new.txt   (a link out to nothing yet)
    ///     ROOT/folder/inlink    -> sub          (a link that stays in)
    ///     ROOT/folder/loop      -> loop
    ///     ROOT/outside/secret
    ///     ROOT/alias            -> folder       (the folder by another name)
    struct Tree {
        let root: String
        var folder: String { root + "/folder" }
        var secret: String { root + "/outside/secret" }

        init() throws {
            let manager = FileManager.default
            // The real path: the temporary folder may itself be reached through a link.
            let base = URL(fileURLWithPath: NSTemporaryDirectory()).resolvingSymlinksInPath().path
            root = base + "/tide-tool-allow-\(UUID().uuidString)"
            try manager.createDirectory(atPath: root + "/folder/sub", withIntermediateDirectories: true)
            try manager.createDirectory(atPath: root + "/outside", withIntermediateDirectories: true)
            try "inside".write(toFile: root + "/folder/inside.txt", atomically: true, encoding: .utf8)
            try "secret".write(toFile: root + "/outside/secret", atomically: true, encoding: .utf8)
            try manager.createSymbolicLink(atPath: root + "/folder/link", withDestinationPath: "../outside")
            try manager.createSymbolicLink(atPath: root + "/folder/dangling", withDestinationPath: "../outside/new.txt")
            try manager.createSymbolicLink(atPath: root + "/folder/inlink", withDestinationPath: "sub")
            try manager.createSymbolicLink(atPath: root + "/folder/loop", withDestinationPath: "loop")
            try manager.createSymbolicLink(atPath: root + "/alias", withDestinationPath: "folder")
        }
    }

    static func policy(_ options: String) throws -> LuaPlugin {
        try LuaPlugin(spec: PluginSpec(parsing: "tool-allow tools=files__* " + options))
    }

    /// The arguments as JSON text.
    static func json(_ arguments: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: arguments, options: [.sortedKeys]), as: UTF8.self)
    }

    static func decision(_ plugin: LuaPlugin, _ arguments: [String: Any]) throws -> ToolCallDecision {
        try plugin.onToolCall(ToolCallReview(call: ToolCall(id: "c", name: "files__read", arguments: json(arguments)),
                                             provider: "mcp:files", round: 1))
    }

    static func refusal(_ decision: ToolCallDecision) -> String? {
        if case .refuse(let reason) = decision { reason } else { nil }
    }

    /// Each way an argument could name the secret: refused, saying where it leads.
    @Test func everyEscapeIsRefused() throws {
        let tree = try Tree()
        let plugin = try Self.policy("folder=\(tree.folder)")
        let escapes: [(String, [String: Any], String)] = [
            // An object under a path argument.
            ("object under path", ["path": ["value": tree.secret]], "argument path (\(tree.secret)) is outside \(tree.folder)"),
            // A link inside the folder that points out: relative, absolute, and with .. after it,
            // which the system takes from where the link leads (a plugin reading the text took it
            // as ROOT/folder/outside/secret, inside).
            ("link, relative", ["path": "link/secret"],
             "argument path (link/secret) is outside \(tree.folder): it leads to \(tree.secret)"),
            ("link, absolute", ["path": tree.folder + "/link/secret"],
             "argument path (\(tree.folder)/link/secret) is outside \(tree.folder): it leads to \(tree.secret)"),
            ("link then ..", ["path": tree.folder + "/link/../outside/secret"],
             "argument path (\(tree.folder)/link/../outside/secret) is outside \(tree.folder): it leads to \(tree.secret)"),
            ("link, .., link", ["path": tree.folder + "/link/../link/secret"], "is outside \(tree.folder)"),
            // A link out to a file that does not exist yet: a write would create it outside.
            ("dangling link", ["path": "dangling"], "argument path (dangling) is outside \(tree.folder): it leads to \(tree.root)/outside/new.txt"),
            // A missing folder, .. back, then a link: a server applying .. first opens the secret.
            ("missing, .., link", ["path": "nothing/../link/secret"], "is outside \(tree.folder)"),
            // Absolute paths, and .., under names that do not say path, at any depth, and as keys.
            ("nested absolute", ["opts": ["p": tree.secret]], "argument opts (\(tree.secret)) is outside \(tree.folder)"),
            ("in a list", ["opts": [["q": ["x", "../outside/secret"]]]], "argument opts (../outside/secret) is outside \(tree.folder)"),
            ("a key", ["opts": [tree.secret: true]], "argument opts (\(tree.secret)) is outside \(tree.folder)"),
            ("top-level other name", ["message": "/etc/passwd"], "argument message (/etc/passwd) is outside \(tree.folder)"),
            // Spellings a server may decode.
            ("%2e%2e", ["path": "%2e%2e/outside/secret"], "argument path (%2e%2e/outside/secret, read as ../outside/secret) is outside"),
            ("%2f", ["opts": ["p": "..%2F..%2Foutside%2Fsecret"]], "read as ../../outside/secret) is outside"),
            ("%5c", ["opts": ["p": "..%5coutside%5csecret"]], "is outside"),
            ("%252e twice", ["path": "%252e%252e/outside/secret"], "read as ../outside/secret) is outside"),
            ("%u002e", ["path": "%u002e%u002e/outside/secret"], "read as ../outside/secret) is outside"),
            ("one dot leader", ["path": "\u{2024}\u{2024}/outside/secret"], "read as ../outside/secret) is outside"),
            ("two dot leader", ["opts": ["p": "\u{2025}/outside/secret"]], "read as ../outside/secret) is outside"),
            ("fullwidth", ["path": "\u{FF0E}\u{FF0E}\u{FF0F}outside\u{FF0F}secret"], "read as ../outside/secret) is outside"),
            ("fullwidth %", ["path": "\u{FF05}2e\u{FF05}2e/outside/secret"], "read as ../outside/secret) is outside"),
            ("division slash", ["path": "..\u{2215}outside\u{2215}secret"], "read as ../outside/secret) is outside"),
            ("fraction slash", ["path": "..\u{2044}outside\u{2044}secret"], "read as ../outside/secret) is outside"),
            ("backslash", ["path": "..\\outside\\secret"], "read as ../outside/secret) is outside"),
            ("overlong UTF-8", ["path": "%c0%ae%c0%ae%c0%afoutside/secret"], "read as ../outside/secret) is outside"),
            ("file URI", ["uri": "file://" + tree.secret], "read as \(tree.secret)) is outside"),
            ("file URI, localhost", ["uri": "file://localhost" + tree.secret], "read as \(tree.secret)) is outside"),
            ("option value", ["revision": "--output=" + tree.secret], "read as \(tree.secret)) is outside"),
            ("short option value", ["revision": "-o" + tree.secret], "read as \(tree.secret)) is outside"),
            ("spaces", ["path": "  " + tree.secret + "\n"], "read as \(tree.secret)) is outside"),
            // What the policy cannot be sure of.
            ("NUL", ["path": "inside.txt\u{0}/../../outside/secret"], "holds a NUL byte, where a server may cut the path"),
            ("%00", ["path": "inside.txt%00"], "read as inside.txt\\x00) holds a NUL byte"),
            ("home", ["opts": ["p": "~/.ssh/id_ed25519"]], "starts with ~, which a server may read as a home folder"),
            ("another's home", ["path": "~root"], "starts with ~, which a server may read as a home folder"),
            ("variable", ["path": "$HOME/.ssh"], "starts with a variable, which a server may expand"),
            ("link loop", ["path": "loop/x"], "cannot be resolved: \(tree.folder)/loop: more than 40 symbolic links"),
            ("too deep", ["path": (0..<20).reduce("x" as Any) { inner, _ in [inner] }], "the arguments nest deeper than 16 levels"),
        ]
        for (name, arguments, expected) in escapes {
            let reason = Self.refusal(try Self.decision(plugin, arguments))
            #expect(reason?.contains(expected) == true, "\(name): \(reason ?? "ran")")
        }
    }

    /// What stays inside runs, a relative path at the top as the full path inside the folder.
    @Test func whatStaysInsideRuns() throws {
        let tree = try Tree()
        let plugin = try Self.policy("folder=\(tree.folder)")
        let runs: [[String: Any]] = [
            ["path": tree.folder + "/inside.txt"],
            ["path": tree.folder + "/inlink/new.txt"],          // a link that stays inside
            ["path": tree.root + "/alias/inside.txt"],           // the folder through a link to it
            ["opts": ["p": tree.folder + "/sub/x", "q": ["a/b", "sub/../inside.txt"]]],
            ["expression": "7/2 + 1", "message": "Hello, world: and/or, a.m. ..."],
            ["revision": "HEAD~1..main", "count": 5, "flag": true],
            ["timezone": "Europe/Paris"],
        ]
        for arguments in runs {
            #expect(try Self.decision(plugin, arguments) == .run, "\(arguments)")
        }
        // A relative path at the top of a path argument runs as the full path inside the folder.
        #expect(try Self.decision(plugin, ["path": "sub/./x.txt"]) == .rewrite(arguments: #"{"path":"\#(tree.folder)/sub/x.txt"}"#))
        #expect(try Self.decision(plugin, ["path": "inlink/new.txt", "n": 1])
                == .rewrite(arguments: #"{"n":1,"path":"\#(tree.folder)/inlink/new.txt"}"#))
        // The folder may be given through a link: what counts is where it leads.
        let aliased = try Self.policy("folder=\(tree.root)/alias")
        #expect(try Self.decision(aliased, ["path": tree.folder + "/inside.txt"]) == .run)
        #expect(Self.refusal(try Self.decision(aliased, ["path": tree.root + "/alias/link/secret"]))?
                    .contains("is outside \(tree.root)/alias: it leads to \(tree.secret)") == true)
    }

    /// Arguments named in `text` hold text, not paths: a file's contents that start with / or
    /// climb with .. are not read as paths there, and still are anywhere else.
    @Test func textArgumentsAreNotReadAsPaths() throws {
        let tree = try Tree()
        let code = "/* a comment */\nimport x from '../../../lib'\n"
        let strict = try Self.policy("folder=\(tree.folder)")
        #expect(Self.refusal(try Self.decision(strict, ["path": "a.js", "content": code]))?.contains("argument content (") == true)
        let plugin = try Self.policy("folder=\(tree.folder) text=content,message")
        #expect(try Self.decision(plugin, ["path": tree.folder + "/a.js", "content": code, "message": "/etc"]) == .run)
        #expect(Self.refusal(try Self.decision(plugin, ["path": tree.folder + "/a.js", "content": code, "mode": "../x"]))?
                    .contains("argument mode (../x) is outside") == true)
    }

    /// A call too large to check is refused by the policy itself, before the sandbox's budget
    /// would stop it (a plugin stopped by its budget is disabled, and would check no more calls).
    @Test func aCallTooLargeToCheckIsRefusedNotAFailure() throws {
        let tree = try Tree()
        let plugin = try Self.policy("folder=\(tree.folder)")
        let many = (0..<20_000).map { "sub/file\($0).txt" }
        #expect(Self.refusal(try Self.decision(plugin, ["paths": many.map { tree.folder + "/" + $0 }]))?
                    .contains("the arguments are too many or too long for the policy to check") == true)
        // Each kind of work a string can ask for, at the default budget: a refusal that says so,
        // never a plugin stopped by its budget.
        let encoded = String(repeating: "%25", count: 30) + "2e"
        let heavy: [(String, [String: Any])] = [
            ("decoded again and again", ["opts": (0..<400).map { "\($0)/" + encoded + String(repeating: "x", count: 3000) }]),
            ("NFKC that grows", ["opts": (0..<100).map { _ in String(repeating: "\u{FDFA}", count: 20_000) }]),
            ("names to look up", ["opts": (0..<300).map { _ in tree.folder + String(repeating: "/sub/..", count: 500) }]),
            ("keys", ["opts": Dictionary(uniqueKeysWithValues: (0..<20_000).map { ("key\($0)", $0) })]),
        ]
        for (name, arguments) in heavy {
            let reason = Self.refusal(try Self.decision(plugin, arguments))
            #expect(reason?.contains("the arguments are too many or too long for the policy to check") == true, "\(name): \(reason ?? "ran")")
        }
        #expect(Self.refusal(try Self.decision(plugin, ["content": String(repeating: "a", count: 70_000)]))
                == "argument content holds a string of 70000 bytes, too long to be read as a path (arguments of text, not paths, can be named in the option text)")
        // One path that asks for more than 1,024 lookups cannot be resolved.
        let winding = tree.folder + String(repeating: "/d", count: 1100)
        try FileManager.default.createDirectory(atPath: winding, withIntermediateDirectories: true)
        let wound = Self.refusal(try Self.decision(plugin, ["path": winding]))
        #expect(wound?.contains("more than 1024 names to look up") == true, "\(wound ?? "ran")")
        // The plugin goes on: the next call is checked.
        #expect(try Self.decision(plugin, ["path": tree.folder + "/inside.txt"]) == .run)
        #expect(Self.refusal(try Self.decision(plugin, ["path": tree.secret])) != nil)
    }

    /// `tide.realpath` resolves as the system does, and `tide.nfkc` normalises as a server may.
    @Test func theHostFunctionsResolveAsTheSystemDoes() throws {
        let tree = try Tree()
        let probe = try PluginFixtures.plugin("probe", """
            return { name = "probe", on_tool_call = function(call)
              local out = {}
              for _, path in ipairs(call.arguments.paths) do
                local resolved, why = tide.realpath(path)
                out[#out + 1] = resolved and (resolved .. " " .. why) or ("error: " .. why)
              end
              out[#out + 1] = tide.nfkc(call.arguments.text)
              return { answer = table.concat(out, "\\n") }
            end }
            """)
        let paths = [
            tree.folder + "/inside.txt",
            tree.folder + "/link/secret",                 // a link followed
            tree.folder + "/link/../outside/secret",      // .. after the link, from where it leads
            tree.folder + "/inlink/a/../b/./c",           // a missing part applied as written
            tree.folder + "/nothing/../link/secret",      // .. back into what exists: links followed again
            tree.folder + "/dangling",                    // a link to nothing yet
            tree.root + "/alias/sub",
            "/../../" + tree.folder.dropFirst(),          // .. at the root stays there
            "relative/path",
            tree.folder + "/loop",
        ]
        let answer = try probe.onToolCall(ToolCallReview(
            call: ToolCall(id: "c", name: "x", arguments: try Self.json(["paths": paths, "text": "\u{2025}\u{FF0F}\u{FF05}\u{FF12}e \u{2100} x"])),
            provider: "probe", round: 1))
        // Each path with how many names were looked up: one per name up to the first that does
        // not exist, one more per link (its readlink), and again from where `..` climbs back.
        let depth = tree.root.split(separator: "/").count
        #expect(answer == .answer([
            tree.folder + "/inside.txt \(depth + 2)",
            tree.secret + " \(depth + 5)",
            tree.secret + " \(depth + 6)",
            tree.folder + "/sub/b/c \(depth + 6)",
            tree.secret + " \(depth + 6)",
            tree.root + "/outside/new.txt \(depth + 5)",
            tree.folder + "/sub \(depth + 4)",
            tree.folder + " \(depth + 1)",
            "error: tide.realpath needs an absolute path, not 'relative/path'",
            "error: \(tree.folder)/loop: more than 40 symbolic links",
            "../%2e a/c x",
        ].joined(separator: "\n")))
        // Not a path: an error the plugin sees.
        let wrong = try PluginFixtures.plugin("wrong", "return { name = 'wrong', on_tool_call = function() tide.realpath(5) end }")
        #expect {
            try wrong.onToolCall(ToolCallReview(call: ToolCall(id: "c", name: "x", arguments: "{}"), provider: "wrong", round: 1))
        } throws: { error in
            "\(error)".contains("tide.realpath needs a path (a string), not number")
        }
    }
}
