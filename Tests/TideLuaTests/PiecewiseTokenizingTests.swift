import Synchronization
import Testing

/// tide.tokenize on text longer than one 64 KiB piece gives the ids of the whole text.
@Suite(.serialized) struct PiecewiseTokenizingTests {
    @Test func longTextGivesTheTokensOfTheWholeText() async throws {
        let sentence = "The quick brown fox jumps over the lazy dog, and 42 foxes... don't! "
        let text = String(repeating: sentence, count: 3000)
        let expected = PluginFixtures.model.tokens(of: text)
        let checksum = expected.enumerated().reduce(Int64(0)) { ($0 + Int64($1.offset + 1) * Int64($1.element)) % 1_000_000_007 }
        let lines = Mutex<[String]>([])
        let plugin = try PluginFixtures.plugin("pieces", """
            return { on_prompt = function()
              local ids = tide.tokenize(("\(sentence)"):rep(3000))
              local sum = 0
              for i, id in ipairs(ids) do sum = (sum + i * id) % 1000000007 end
              tide.log(#ids, sum)
            end }
            """, log: { line in lines.withLock { $0.append(line) } })
        _ = try await PluginFixtures.session([plugin], maxTokens: 1).reply(to: "Hi").collect()
        #expect(text.utf8.count > 3 * 65536)
        #expect(lines.withLock { $0 } == ["[pieces] \(expected.count) \(checksum)"])
    }
}
