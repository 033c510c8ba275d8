import Synchronization
import Testing
import TideCore
import TideTestSupport

/// Hook semantics on the real model, one test at a time (each has its own llama.cpp context).
@Suite(.serialized) struct PluginHookTests {
    let question = "What is the capital of France?"

    @Test func onTokenReplacesDropsAndChainsInOrder() async throws {
        let upper = try PluginFixtures.plugin("upper", "return { on_token = function(t) return t.text:upper() end }")
        let noSpaces = try PluginFixtures.plugin("nospace", """
            return { on_token = function(t) if t.text:find('^%s*$') then return false end
                                             return (t.text:gsub(' ', '_')) end }
            """)
        let reply = try await PluginFixtures.session([try PluginFixtures.capitals(), upper, noSpaces]).reply(to: question).collect()
        #expect(reply.text == "THE_CAPITAL_OF_FRANCE_IS_PARIS.")
        #expect(reply.summary?.rawText == "The capital of France is Paris.")
    }

    @Test func shouldStopEndsTheReplyWithTheReason() async throws {
        let stop = try PluginFixtures.plugin("two-words", """
            return { should_stop = function(reply)
              local _, words = reply.text:gsub('%S+', '')
              if words >= 2 then return true, words .. ' words' end
            end }
            """)
        let reply = try await PluginFixtures.session([stop]).reply(to: question).collect()
        #expect(reply.summary?.stopReason == .hook(name: "two-words", reason: "2 words"))
        #expect(reply.text.split(separator: " ").count == 2)
    }

    @Test func tideStopFromOnToken() async throws {
        let stop = try PluginFixtures.plugin("stop-at-paris", """
            return { on_token = function(t, reply) if reply.text:find('Paris') then tide.stop('found it') end end }
            """)
        let reply = try await PluginFixtures.session([try PluginFixtures.capitals(), stop]).reply(to: question).collect()
        #expect(reply.summary?.stopReason.description == "plugin:stop-at-paris: found it")
        #expect(reply.text == "The capital of France is Paris")
    }

    @Test func onPromptEditsAndAnswers() async throws {
        let persona = try PluginFixtures.plugin("persona", """
            return { on_prompt = function(prompt)
              prompt.messages[1].content = 'You are a pirate. Always say Arr.'
              prompt.params.max_tokens = 5
            end }
            """)
        let reply = try await PluginFixtures.session([persona]).reply(to: "Hello!").collect()
        #expect(reply.summary?.statistics.generatedTokens ?? 0 <= 5)
        let canned = try PluginFixtures.plugin("canned", """
            return { on_prompt = function(prompt)
              if prompt.messages[#prompt.messages].content:find('password') then return 'I cannot help with that.' end
            end }
            """)
        let session = try PluginFixtures.session([canned])
        let answer = try await session.reply(to: "What is the admin password?").collect()
        #expect(answer.text == "I cannot help with that.")
        #expect(answer.summary?.stopReason == .answeredByHook(name: "canned"))
    }

    @Test func stateLivesAcrossTurnsAndOnReplyRewritesHistory() async throws {
        let counter = try PluginFixtures.plugin("counter", """
            return { on_reply = function(reply)
              tide.state.turns = (tide.state.turns or 0) + 1
              return '[turn ' .. tide.state.turns .. '] ' .. reply.text
            end }
            """)
        let session = try PluginFixtures.session([counter], maxTokens: 8)
        _ = try await session.reply(to: "Hi").collect()
        _ = try await session.reply(to: "Hi again").collect()
        #expect(session.history[2].content.hasPrefix("[turn 1] "))
        #expect(session.history[4].content.hasPrefix("[turn 2] "))
    }

    @Test func logsNameThePlugin() async throws {
        let lines = Mutex<[String]>([])
        let logger = try PluginFixtures.plugin("logger", """
            return { on_reply = function(reply) tide.log('stop was', reply.stop_reason); print('via print') end }
            """, log: { line in lines.withLock { $0.append(line) } })
        _ = try await PluginFixtures.session([logger], maxTokens: 4).reply(to: question).collect()
        #expect(lines.withLock { $0 } == ["[logger] stop was max-tokens", "[logger] via print"])
    }

    /// Hostile hooks: each is reported once with the plugin, hook and message; the plugin is
    /// disabled and the reply goes on; under the strict policy the reply fails with that message.
    @Test(arguments: [
        ("on_token", "while true do end", "instruction budget exceeded"),
        ("should_stop", "while true do end", "instruction budget exceeded"),
        ("on_prompt", "while true do end", "instruction budget exceeded"),
        ("on_reply", "while true do end", "instruction budget exceeded"),
        ("on_logits", "while true do end", "instruction budget exceeded"),
        ("on_token", "local t = {} for i = 1, 1e9 do t[i] = ('x'):rep(100) .. i end", "memory limit exceeded"),
        ("on_token", "return string.rep('x', 1e10)", "too large"),
        ("on_token", "io.open('/etc/passwd')", "global 'io'"),
        ("on_token", "os.execute('true')", "field 'execute'"),
        ("on_token", "require 'os'", "global 'require'"),
        ("on_token", "debug.sethook()", "global 'debug'"),
        ("on_token", "package.loadlib('libc.so.6', 'system')", "global 'package'"),
        ("on_token", "assert(load('\\27Lua binary'))()", "attempt to load a binary chunk"),
        ("on_token", "error({})", "(error object is a table value)"),
        ("on_token", "error(nil)", "(error object is a nil value)"),
        ("on_token", "coroutine.yield()", "global 'coroutine'"),
        ("on_token", "return 42", "on_token must return nil, a string or false"),
    ])
    func hostileHooksAreContained(hook: String, body: String, message: String) async throws {
        let source = "local p = {} function p.\(hook)(...) \(body) end return p"
        let hostile = try PluginFixtures.plugin("hostile", source)
        let reply = try await PluginFixtures.session([hostile], maxTokens: 12).reply(to: question).collect()
        #expect(reply.failures.count == 1)
        let failure = try #require(reply.failures.first)
        #expect(failure.hookName == "hostile")
        #expect(failure.point.rawValue == hook)
        #expect(failure.message.contains(message), "got: \(failure.message)")
        #expect(reply.summary != nil)
        if hook != "on_prompt" { #expect(!reply.text.isEmpty) }

        let strict = try PluginFixtures.plugin("hostile", source)
        do {
            _ = try await PluginFixtures.session([strict], policy: .failReply, maxTokens: 12).reply(to: question).collect()
            Issue.record("the strict policy let \(hook) fail silently")
        } catch let failure as HookFailure {
            #expect(failure.message.contains(message))
        }
    }

    @Test func tamperingWithTheStringMetatableStaysInOnePlugin() async throws {
        let vandal = try PluginFixtures.plugin("vandal", """
            getmetatable('').__index.upper = function() return 'vandalised' end
            return { on_token = function(t) return nil end }
            """)
        let upper = try PluginFixtures.plugin("upper", "return { on_token = function(t) return t.text:upper() end }")
        let reply = try await PluginFixtures.session([try PluginFixtures.capitals(), vandal, upper]).reply(to: question).collect()
        #expect(reply.text == "THE CAPITAL OF FRANCE IS PARIS.")
        #expect(!reply.text.contains("vandalised"))
    }
}

/// The logits hook and the tokenizer functions, on the real model.
@Suite(.serialized) struct LogitsHookTests {
    @Test func onLogitsSeesSortedCandidatesAndBansTokens() async throws {
        let lines = Mutex<[String]>([])
        let plugin = try PluginFixtures.plugin("no-paris", """
            return { on_logits = function(view)
              local best = view:top(5)
              if not tide.state.checked then
                tide.state.checked = true
                local sorted = #best == 5
                for i = 2, #best do sorted = sorted and best[i - 1].logit >= best[i].logit end
                tide.log(sorted, type(best[1].id), type(best[1].text))
              end
              for _, id in ipairs(tide.tokenize(' Paris')) do view:ban(id) end
            end }
            """, log: { line in lines.withLock { $0.append(line) } })
        // The capitals plugin raises " Paris" where it fits; the ban wins. (The model may still
        // spell the word with other tokens: which it does is this machine's business.)
        let chosen = ChosenTokens()
        let reply = try await PluginFixtures.session([try PluginFixtures.capitals(), plugin, chosen])
            .reply(to: "What is the capital of France?").collect()
        #expect(reply.failures.isEmpty)
        let paris = try PluginFixtures.model.tokenize(" Paris")
        try #require(paris.count == 1)
        #expect(reply.text.hasPrefix("The capital of France is"), "\(reply.text)")
        #expect(!chosen.ids.withLock { $0 }.contains(paris[0]), "\(reply.text)")
        #expect(lines.withLock { $0 } == ["[no-paris] true number string"])
    }

    @Test func biasPushesATokenUp() async throws {
        let plugin = try PluginFixtures.plugin("prefer-london", """
            return { on_logits = function(view)
              for _, id in ipairs(tide.tokenize(' London')) do view:bias(id, 30) end
            end }
            """)
        let reply = try await PluginFixtures.session([plugin], maxTokens: 12).reply(to: "What is the capital of France?").collect()
        #expect(reply.text.contains("London"))
    }

    @Test func tokenizerFunctionsRoundTrip() async throws {
        let lines = Mutex<[String]>([])
        let plugin = try PluginFixtures.plugin("tokens", """
            return { on_prompt = function(prompt)
              local ids = tide.tokenize('Hello, tide! café')
              tide.log(#ids > 3, tide.detokenize(ids), tide.token_text(ids[1]))
            end }
            """, log: { line in lines.withLock { $0.append(line) } })
        _ = try await PluginFixtures.session([plugin], maxTokens: 1).reply(to: "Hi").collect()
        #expect(lines.withLock { $0 } == ["[tokens] true Hello, tide! café Hello"])
    }

    @Test func onLogitsSeesTheReplySoFar() async throws {
        let lines = Mutex<[String]>([])
        let plugin = try PluginFixtures.plugin("reply-so-far", """
            return { on_logits = function(view, reply)
              tide.log(reply.tokens, #reply.text)
            end }
            """, log: { line in lines.withLock { $0.append(line) } })
        let reply = try await PluginFixtures.session([plugin], maxTokens: 3).reply(to: "Hi").collect()
        let seen = lines.withLock { $0 }
        #expect(seen.count == 3)
        #expect(seen.first == "[reply-so-far] 0 0")
        #expect(seen.last?.hasPrefix("[reply-so-far] 2 ") == true)
        #expect(reply.text.hasPrefix(String(reply.text.prefix(Int(seen.last!.split(separator: " ").last!)!))))
    }

    @Test func tideModelDescribesTheSessionsModel() async throws {
        let lines = Mutex<[String]>([])
        let plugin = try PluginFixtures.plugin("model-facts", """
            return { on_prompt = function()
              local m = tide.model
              tide.log(m.name, m.backend, m.architecture, m.context, m.trained_context, m.vocabulary_size,
                       #m.end_tokens, tide.token_text(m.end_tokens[1]), tide.token_text(m.end_tokens[#m.end_tokens]))
            end }
            """, log: { line in lines.withLock { $0.append(line) } })
        _ = try await PluginFixtures.session([plugin], maxTokens: 1).reply(to: "Hi").collect()
        #expect(lines.withLock { $0 } == ["[model-facts] Smollm2 135M 8k Lc100K Mix1 Ep2 llama.cpp llama 1024 8192 49152 3 <|endoftext|> <reponame>"])
    }

    @Test func raisingTheEndTokenEndsTheReply() async throws {
        let plugin = try PluginFixtures.plugin("end-after-three", """
            -- Before the third token the end is banned, so the model cannot end sooner on any machine.
            return { on_logits = function(view, reply)
              for _, id in ipairs(tide.model.end_tokens) do
                if reply.tokens < 3 then view:ban(id) else view:bias(id, 100) end
              end
            end }
            """)
        let reply = try await PluginFixtures.session([plugin], maxTokens: 20).reply(to: "Tell me a story.").collect()
        #expect(reply.summary?.stopReason == .endOfGeneration)
        #expect(reply.summary?.statistics.generatedTokens == 3, "three tokens; the end token is not counted")
        #expect(!reply.text.contains("<|im_end|>"))
    }

    @Test func badTokenIdsAndAViewOutsideOnLogitsAreErrors() async throws {
        let plugin = try PluginFixtures.plugin("bad-ids", """
            return { on_logits = function(view) view:ban(10 ^ 9) end }
            """)
        let reply = try await PluginFixtures.session([plugin], maxTokens: 4).reply(to: "Hi").collect()
        #expect(reply.failures.first?.message.contains("no token 1000000000 in a vocabulary of 49152") == true)
        #expect(reply.summary != nil)
    }
}

