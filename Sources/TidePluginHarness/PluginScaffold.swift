import TideCore

/// What `tide plugins new NAME` writes (docs/plugins.md, "Writing a plugin"): a plugin with its
/// header comment, an option with its default (Tide refuses options a plugin does not declare),
/// the hooks asked for with their arguments described, and a test file that passes against it.
public struct PluginScaffold: Sendable {
    /// The plugin's name: its file's name without `.lua`.
    public let name: String
    /// The hooks it starts with, in the order Tide calls them.
    public let hooks: [HookPoint]

    /// The hooks a plugin starts with when none is asked for: a stop rule.
    public static let defaultHooks: [HookPoint] = [.stop]

    /// A scaffold of `name` with `hooks` (each once; ``defaultHooks`` for none).
    public init(name: String, hooks: [HookPoint]) {
        self.name = name
        let asked = Set(hooks)
        self.hooks = asked.isEmpty ? Self.defaultHooks : HookPoint.allCases.filter(asked.contains)
    }

    /// Why `name` cannot name a plugin file, if it cannot: letters, digits, `-` and `_`, starting
    /// with a letter, and not ending in `_test` (the name of a test file).
    public static func problem(withName name: String) -> String? {
        guard let first = name.unicodeScalars.first, ("a"..."z").contains(first) || ("A"..."Z").contains(first),
              name.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "-_".unicodeScalars.contains($0) })
        else { return "a plugin's name is letters, digits, - and _, starting with a letter, such as stop-on-code" }
        if name.hasSuffix("_test") { return "a name ending in _test names a plugin's test file, not a plugin" }
        return nil
    }

    /// A hook as `--hook` names it: its Lua name (`should_stop`) or that name without `on_` or
    /// `should_` (`stop`, `token`).
    public static func hook(named name: String) -> HookPoint? {
        HookPoint(rawValue: name) ?? HookPoint.allCases.first { $0.rawValue == "on_" + name || $0.rawValue == "should_" + name }
    }

    /// The plugin's source.
    public var plugin: String {
        var lines = [
            "-- \(name): WHAT IT DOES, in one line.",
            "--",
            "-- A longer description: when it acts, and what the user sees.",
            "--",
            "-- Options:  word = \"done\"   the word that ends the reply" + (hooks.contains(.stop) ? "" : " (use it in a hook, or remove it)"),
            "-- Example:  tide chat --plugin '\(name) word=finished'",
            "--           tide plugins test \(name)_test.lua",
            "local plugin = {",
            "  name = \"\(name)\",",
            "  version = \"0.1\",",
            "  description = \"WHAT IT DOES, in one line.\",",
            "  -- Each option with its default; Tide refuses any option not declared here, and gives",
            "  -- each as the type of its default (tide.options.word is a string).",
            "  options = { word = \"done\" },",
            "}",
        ]
        for hook in hooks { lines += [""] + Self.body(of: hook) }
        return (lines + ["", "return plugin"]).joined(separator: "\n") + "\n"
    }

    /// Each hook's definition, its arguments described, doing something small that its test pins.
    private static func body(of hook: HookPoint) -> [String] {
        switch hook {
        case .prompt: [
            "-- Before the prompt is built, once per turn. prompt.messages: {role =, content =}, the new",
            "-- user message last; prompt.params: the parameters by JSON name (max_tokens, temperature, ...).",
            "-- Edit them in place; return a string to answer in the model's place.",
            "function plugin.on_prompt(prompt)",
            "  local last = prompt.messages[#prompt.messages]",
            "  last.content = last.content .. \" Answer briefly.\"",
            "end",
        ]
        case .logits: [
            "-- Before each token is sampled. view:top(k): the k best candidates {id =, text =, logit =};",
            "-- view:bias(id, delta) adds to a token's score; view:ban(id) makes it impossible.",
            "function plugin.on_logits(view, reply)",
            "  for _, candidate in ipairs(view:top(10)) do",
            "    if candidate.text:find(\"!\", 1, true) then view:ban(candidate.id) end",
            "  end",
            "end",
        ]
        case .stop: [
            "-- After each token. reply.text: the reply so far; reply.tokens: tokens generated.",
            "-- Return true and a reason to end the reply; tide.rewind(at) takes back from byte `at`.",
            "function plugin.should_stop(reply)",
            "  if reply.text:find(tide.options.word, 1, true) then",
            "    return true, \"said \" .. tide.options.word",
            "  end",
            "end",
        ]
        case .token: [
            "-- On the text about to be shown. token.text, token.index, token.final (the call after the",
            "-- last token). Return nil to show it, a string to show instead, false to drop it.",
            "function plugin.on_token(token, reply)",
            "  return (token.text:gsub(\"\\t\", \"  \"))",
            "end",
        ]
        case .reply: [
            "-- Once, after the last token. reply.text (as shown), reply.stored (what the history keeps),",
            "-- reply.stop_reason, reply.stats. Return a string to store that in the history instead.",
            "function plugin.on_reply(reply)",
            "  tide.log(\"replied in \" .. reply.stats.generated_tokens .. \" tokens\")",
            "end",
        ]
        case .toolCall: [
            "-- Before a tool call runs. call.name, call.arguments (a table), call.provider, call.round.",
            "-- Return nil to run it, {refuse = reason}, {answer = result} or {arguments = table}.",
            "function plugin.on_tool_call(call)",
            "  if call.name:find(\"delete\", 1, true) then return { refuse = \"deleting is not allowed\" } end",
            "end",
        ]
        case .toolResult: [
            "-- After a tool call, before the model reads its result: the call's fields, result.content,",
            "-- result.failed. Return a string for the model to read instead.",
            "function plugin.on_tool_result(result)",
            "  if #result.content > 2000 then return result.content:sub(1, 2000) .. \" (cut)\" end",
            "end",
        ]
        }
    }

    /// Its test file, which passes against ``plugin`` as written.
    public var test: String {
        var lines = [
            "-- Tests of \(name) (tide plugins test \(name)_test.lua): each drives the plugin through a scripted",
            "-- reply, without a model. Change them as the plugin changes.",
            "describe(\"\(name)\", function()",
        ]
        for hook in hooks { lines += [""] + test(of: hook) }
        lines += [
            "",
            "  it(\"refuses an option it does not take\", function()",
            "    assert.has_error(function() harness.plugin{ colour = \"red\" } end, \"unknown option 'colour'\")",
            "  end)",
            "end)",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// A test of each hook's example behaviour.
    private func test(of hook: HookPoint) -> [String] {
        switch hook {
        case .prompt: [
            "  it(\"asks for a brief answer\", function()",
            "    local reply = harness.plugin():reply{ user = \"Why is the sky blue?\", pieces = { \"Light.\" } }",
            "    local messages = reply.prompt.messages",
            "    assert.equals(\"Why is the sky blue? Answer briefly.\", messages[#messages].content)",
            "  end)",
        ]
        case .logits: [
            "  it(\"bans exclamation marks\", function()",
            "    local step = harness.plugin():logits{ scores = { { id = 1, text = \"!\", logit = 3 }, { id = 2, text = \".\", logit = 1 } } }",
            "    assert.same({ 1 }, step.banned)",
            "  end)",
        ]
        case .stop: [
            "  it(\"ends the reply at its word\", function()",
            "    local reply = harness.plugin{ word = \"over\" }:reply{ user = \"Go.\", pieces = { \"It\", \" is\", \" over\", \" now\" } }",
            "    assert.equals(\"It is over\", reply.text)",
            "    assert.equals(\"plugin:\(name): said over\", reply.stop_reason)",
            "  end)",
        ]
        case .token: [
            "  it(\"shows tabs as spaces\", function()",
            "    local reply = harness.plugin():reply{ user = \"Go.\", pieces = { \"a\\tb\" } }",
            "    assert.equals(\"a  b\", reply.text)",
            "  end)",
        ]
        case .reply: [
            "  it(\"logs the reply's length\", function()",
            "    local reply = harness.plugin():reply{ user = \"Go.\", pieces = { \"One\", \" two\" } }",
            "    assert.matches(\"replied in 2 tokens\", reply.log[1])",
            "  end)",
        ]
        case .toolCall: [
            "  it(\"refuses to delete\", function()",
            "    assert.same({ refuse = \"deleting is not allowed\" }, harness.plugin():tool_call{ name = \"delete_file\", arguments = {} })",
            "    assert.same({ run = true }, harness.plugin():tool_call{ name = \"read_file\", arguments = {} })",
            "  end)",
        ]
        case .toolResult: [
            "  it(\"cuts a long result\", function()",
            "    local cut = harness.plugin():tool_result{ name = \"read_file\", content = string.rep(\"x\", 3000) }",
            "    assert.equals(2006, #cut.content)",
            "    assert.same({}, harness.plugin():tool_result{ name = \"read_file\", content = \"short\" })",
            "  end)",
        ]
        }
    }
}
