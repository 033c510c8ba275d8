import Testing
import TideCore
import TideLua

/// `on_tool_call` and `on_tool_result` in Lua: what they see, each decision they may return,
/// and what they may not.
@Suite struct ToolPolicyHookTests {
    static let review = ToolCallReview(call: ToolCall(id: "call_1", name: "files__read", arguments: #"{"path": "/srv/a.txt", "lines": [1, 2]}"#),
                                       provider: "mcp:files", round: 2)

    func plugin(_ body: String) throws -> LuaPlugin {
        try PluginFixtures.plugin("policy", "return { name = \"policy\", \(body) }")
    }

    @Test func theCallIsSeenWithItsArgumentsAsATable() throws {
        let plugin = try plugin("""
            on_tool_call = function(call)
              return { answer = call.name .. " " .. call.arguments.path .. " " .. #call.arguments.lines .. " " .. call.provider .. " " .. call.round }
            end
            """)
        #expect(plugin.points == [.toolCall])
        #expect(try plugin.onToolCall(Self.review) == .answer("files__read /srv/a.txt 2 mcp:files 2"))
    }

    @Test(arguments: [
        ("return nil", ToolCallDecision.run),
        ("return true", .run),
        ("return { refuse = 'no files today' }", .refuse(reason: "no files today")),
        ("return { answer = { lines = 3 } }", .answer(#"{"lines":3}"#)),
        ("return { arguments = { path = '/srv/b.txt' } }", .rewrite(arguments: #"{"path":"/srv/b.txt"}"#)),
        ("return { arguments = {} }", .rewrite(arguments: "{}")),
    ])
    func eachDecision(body: String, decision: ToolCallDecision) throws {
        #expect(try plugin("on_tool_call = function(call) \(body) end").onToolCall(Self.review) == decision)
    }

    @Test(arguments: [
        ("return 5", "on_tool_call returns nil (run the call), {refuse = REASON}, {answer = RESULT} or {arguments = TABLE}, not a number"),
        ("return { refuse = 'a', answer = 'b' }", "one of those fields, not answer, refuse"),
        ("return { arguments = 'path=/x' }", "on_tool_call's arguments must be a table of the arguments by name"),
        ("return { arguments = { 1, 2 } }", "on_tool_call's arguments must be a table of the arguments by name"),
        ("return { refuse = 3 }", "on_tool_call's refuse must be the reason, a string"),
        ("return { skip = true }", "not {skip = …}"),
    ])
    func whatADecisionCannotBe(body: String, message: String) throws {
        let plugin = try plugin("on_tool_call = function(call) \(body) end")
        #expect {
            try plugin.onToolCall(Self.review)
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test func toolAllowKeepsCallsToItsListAndPathsInItsFolder() throws {
        let plugin = try LuaPlugin(spec: PluginSpec(parsing: "tool-allow tools=git__git_status,git__git_log*,time__* folder=/srv/repo "
                                                    + "arguments='max_count~^%d+$;branch~^[%w_-]+$'"))
        func decision(_ name: String, _ arguments: String) throws -> ToolCallDecision {
            try plugin.onToolCall(ToolCallReview(call: ToolCall(id: "c", name: name, arguments: arguments), provider: "mcp:git", round: 1))
        }
        #expect(try decision("git__git_status", #"{"repo_path": "/srv/repo"}"#) == .run)
        #expect(try decision("git__git_log_all", #"{"repo_path": "/srv/repo/sub", "max_count": 5}"#) == .run)
        #expect(try decision("time__now", "{}") == .run)
        #expect(try decision("git__git_commit", #"{"repo_path": "/srv/repo"}"#)
                == .refuse(reason: "git__git_commit is not among the tools allowed here (git__git_status,git__git_log*,time__*)"))
        #expect(try decision("git__git_status", #"{"repo_path": "/srv/repo/../secrets"}"#)
                == .refuse(reason: "argument repo_path (/srv/repo/../secrets) is outside /srv/repo"))
        #expect(try decision("git__git_status", #"{"repo_path": "/srv/repository"}"#)
                == .refuse(reason: "argument repo_path (/srv/repository) is outside /srv/repo"))
        #expect(try decision("git__git_status", #"{"repo_path": "../../etc"}"#)
                == .refuse(reason: "argument repo_path (../../etc) is outside /srv/repo"))
        // A relative path runs inside the folder: the call is rewritten to the full path.
        #expect(try decision("git__git_status", #"{"repo_path": "docs/./a"}"#) == .rewrite(arguments: #"{"repo_path":"/srv/repo/docs/a"}"#))
        #expect(try decision("git__git_log", #"{"repo_path": "/srv/repo", "max_count": "5; rm"}"#)
                == .refuse(reason: "argument max_count does not match ^%d+$"))
        #expect(try decision("git__git_log", #"{"repo_path": "/srv/repo", "branch": "main"}"#) == .run)
        // Paths in lists and under other names are checked too; in a list they must be absolute.
        #expect(try decision("git__git_status", #"{"paths": ["/srv/repo/a", "/etc/passwd"]}"#)
                == .refuse(reason: "argument paths (/etc/passwd) is outside /srv/repo"))
        #expect(try decision("git__git_status", #"{"options": {"source": "/srv/repo/a", "destination": "/tmp/b"}}"#)
                == .refuse(reason: "argument options (/tmp/b) is outside /srv/repo"))
        #expect(try decision("git__git_status", #"{"files": ["notes.txt"]}"#)
                == .refuse(reason: "argument files: a path in a list or table must be absolute, not notes.txt"))
        #expect(try decision("git__git_status", #"{"files": ["/srv/repo/notes.txt"], "message": "text"}"#) == .run)
        // Every string is read as a path, whatever its name (ToolAllowPathTests has the rest).
        #expect(try decision("git__git_status", #"{"files": ["/srv/repo/notes.txt"], "message": "/etc"}"#)
                == .refuse(reason: "argument message (/etc) is outside /srv/repo"))
        // A mistake in the options refuses every call, and says which.
        let misconfigured = try LuaPlugin(spec: PluginSpec(parsing: "tool-allow tools=* folder=relative/dir"))
        #expect(try misconfigured.onToolCall(Self.review)
                == .refuse(reason: "tool-allow is misconfigured: its option folder must be an absolute path, not 'relative/dir'"))
        // No list: nothing runs.
        let closed = try LuaPlugin(spec: PluginSpec(parsing: "tool-allow"))
        #expect(try closed.onToolCall(Self.review) == .refuse(reason: "files__read is not among the tools allowed here ()"))
    }

    @Test func aResultIsSeenAndMayBeReplaced() throws {
        let plugin = try plugin("""
            on_tool_result = function(result)
              if result.failed then return nil end
              return (result.content:gsub("%d", "#")) .. " from " .. result.name
            end
            """)
        let result = ToolResult(call: Self.review.call, content: "call 555-0100", failed: false, duration: .zero)
        #expect(try plugin.onToolResult(result, review: Self.review) == "call ###-#### from files__read")
        var failed = result
        failed.failed = true
        #expect(try plugin.onToolResult(failed, review: Self.review) == nil)
        let wrong = try self.plugin("on_tool_result = function(result) return { text = 'x' } end")
        #expect {
            try wrong.onToolResult(result, review: Self.review)
        } throws: { error in
            "\(error)".contains("on_tool_result returns nil (the result as it is) or the text the model reads instead, not a table")
        }
    }
}
