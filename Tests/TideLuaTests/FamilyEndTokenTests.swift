import Testing
import TideCore
import TideLlama
import TideTestSupport

/// Each family's end-of-turn token ends a reply: a logits plugin raises it after a few tokens, and
/// the reply stops with reason `eos`, nothing of the token shown or kept.
@Suite struct FamilyEndTokenTests {
    /// Bans the end tokens for `after` tokens, then raises the one spelled `token`: the reply's
    /// length is certain whatever words the random weights prefer on this machine.
    static let endWith = """
        -- end-with: bans the end tokens until the reply has `after` tokens, then raises the
        -- end-of-turn token spelled `token`.
        return {
          name = "end-with",
          options = { token = "", after = 3 },
          on_logits = function(view, reply)
            for _, id in ipairs(tide.model.end_tokens) do
              if reply.tokens < tide.options.after then view:ban(id)
              elseif tide.token_text(id) == tide.options.token then view:bias(id, 1000) end
            end
          end,
        }
        """

    @Test(arguments: ModelFamily.all)
    func theFamilysEndTokenEndsTheReply(family: ModelFamily) async throws {
        try family.checkInstalled()
        let model = try LlamaModel.load(path: family.path, contextSize: 512)
        let plugin = try PluginFixtures.plugin("end-with", Self.endWith, options: "token='\(family.endOfTurn)' after=3")
        var parameters = GenerationParameters()
        parameters.temperature = 0
        parameters.maxTokens = 16
        let session = ChatSession(backend: try LlamaBackend(model: model, options: LlamaContextOptions(contextSize: 512, machine: .underTest)),
                                  systemPrompt: "You are terse.", parameters: parameters, hooks: [plugin])
        let reply = try await session.reply(to: "Hi").collect()
        let summary = try #require(reply.summary)
        #expect(summary.stopReason == .endOfGeneration, "\(family)")
        #expect(summary.statistics.generatedTokens == 3, "\(family): three tokens; the end token is not counted")
        // DeepSeek R1's prompt opens its reasoning: those three tokens are reasoning, kept apart.
        for text in [reply.text, summary.rawText, summary.storedText, summary.reasoning] {
            #expect(!text.contains(family.endOfTurn), "\(family): \(text.debugDescription)")
        }
        let kept = try #require(session.history.last)
        #expect(kept.role == .assistant && kept.content == summary.storedText && (kept.reasoning ?? "") == summary.reasoning, "\(family)")
    }
}
