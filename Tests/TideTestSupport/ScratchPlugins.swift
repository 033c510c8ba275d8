import Foundation

/// Plugins written to a scratch folder, for tests that need a plugin of their own.
public enum ScratchPlugins {
    /// `quote-results`: answers a conversation that ends with a tool's result by quoting it, so
    /// the words of the round after a tool call are certain.
    public static let quoteResults = """
        -- Answers a conversation that ends with tool results by quoting them.
        return {
          name = "quote-results",
          on_prompt = function(prompt)
            local last = prompt.messages[#prompt.messages]
            if last.role == "tool" then return "The tool said: " .. last.content end
          end,
        }
        """

    /// `tag`: adds `[MARK]` (its option `mark`) to the end of every reply, so a test can see
    /// which instance of it ran, and whether twice.
    public static let tag = """
        -- Marks the end of each reply with [mark].
        return {
          name = "tag",
          options = { mark = "tag" },
          on_token = function(token)
            if token.final then return token.text .. "[" .. tide.options.mark .. "]" end
          end,
        }
        """

    /// `capitals`: makes the words of a reply certain, whichever words this machine's rounding
    /// would have the model pick. A user message naming one of its countries is answered "The
    /// capital of COUNTRY is CITY." (with the option `text`, every reply is that text), then the
    /// reply ends with one of the model's end tokens (stop reason `eos`). The model still runs:
    /// each token is scored and sampled as usual; a raise of 100 to the next token of the text
    /// makes the choice certain. Once the reply leaves the text (a rewind, a ban), it is the
    /// model's. Other messages are left to the model.
    public static let capitals = """
        -- capitals: answers questions about capitals with certain words (a test fixture).
        local cities = { { "France", "Paris" }, { "Italy", "Rome" }, { "Germany", "Berlin" }, { "Spain", "Madrid" } }
        return {
          name = "capitals",
          options = { text = "" },
          on_prompt = function(prompt)
            local asked = prompt.messages[#prompt.messages].content
            local text = tide.options.text ~= "" and tide.options.text or nil
            for _, pair in ipairs(cities) do
              if not text and asked:find(pair[1], 1, true) then
                text = "The capital of " .. pair[1] .. " is " .. pair[2] .. "."
              end
            end
            tide.state.text = text
          end,
          on_logits = function(view, reply)
            local text = tide.state.text
            if not text or text:sub(1, #reply.text) ~= reply.text then return end
            if #reply.text < #text then
              view:bias(tide.tokenize(text:sub(#reply.text + 1))[1], 100)
            else
              for _, id in ipairs(tide.model.end_tokens) do view:bias(id, 100) end
            end
          end,
        }
        """

    /// `no-end`: bans the model's end tokens, so that a reply runs until something else ends it
    /// (its `max-tokens`, a client that leaves, a shutdown), whichever words it holds.
    public static let noEnd = """
        -- no-end: bans the end of the reply (a test fixture).
        return { name = "no-end", on_logits = function(view)
          for _, id in ipairs(tide.model.end_tokens) do view:ban(id) end
        end }
        """

    /// The `no-end` plugin's file, written once.
    public static let noEndFile: String = {
        do {
            return try folder(["no-end": noEnd]).appendingPathComponent("no-end.lua").path
        } catch {
            fatalError("cannot write the no-end plugin to a scratch folder: \(error)")
        }
    }()

    /// The `capitals` plugin's file, written once, for `--plugin PATH` and `@plugin PATH`.
    public static let capitalsFile: String = {
        do {
            return try folder(["capitals": capitals]).appendingPathComponent("capitals.lua").path
        } catch {
            fatalError("cannot write the capitals plugin to a scratch folder: \(error)")
        }
    }()

    /// Writes `<think>\nTHINK\n</think>\n\nANSWER` (as Qwen 3 writes a reply) and the end token,
    /// one token per step (the open tag left out when `open` is empty: the prompt opened it).
    public static let thinkThen = """
        -- think-then: writes a fixed reply token by token: `think` between the reasoning tags, then
        -- `answer`, then the end-of-turn token spelled `stop`.
        return {
          name = "think-then",
          options = { think = "", answer = "", open = "<think>", stop = "" },
          on_logits = function(view, reply)
            local o = tide.options
            if not tide.state.ids then
              local ids = {}
              local function add(text) for _, id in ipairs(tide.tokenize(text)) do ids[#ids + 1] = id end end
              add(o.open .. "\\n" .. o.think .. "\\n</think>\\n\\n" .. o.answer)
              for _, id in ipairs(tide.model.end_tokens) do
                if tide.token_text(id) == o.stop then ids[#ids + 1] = id end
              end
              tide.state.ids = ids
            end
            local id = tide.state.ids[reply.tokens + 1]
            if id then view:bias(id, 1000) end
          end,
        }
        """

    /// A new scratch folder holding `plugins` (name → Lua source) as `NAME.lua`.
    public static func folder(_ plugins: [String: String]) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tide-plugins-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, source) in plugins {
            try source.write(to: folder.appendingPathComponent("\(name).lua"), atomically: true, encoding: .utf8)
        }
        return folder
    }
}
