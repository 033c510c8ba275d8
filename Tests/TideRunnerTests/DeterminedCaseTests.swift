import Foundation
import Synchronization
import Testing
import TideCore
import TideLua
import TideProvider
@testable import TideRunner
import TideTestSupport

/// Which cases their identity determines (``ScriptResult/determined``), so that `tide run` may
/// give them back whole: on the scripted model, with a reply cache in memory.
@Suite struct DeterminedCaseTests {
    /// Replies kept in memory by key.
    final class MemoryCache: ReplyCache {
        let kept = Mutex<[ReplyCacheKey: CachedReply]>([:])
        func reply(for key: ReplyCacheKey) async -> CachedReply? { kept.withLock { $0[key] } }
        func store(_ reply: CachedReply, for key: ReplyCacheKey) async { kept.withLock { $0[key] = reply } }
    }

    /// `stamp`: notes the time it answers at, in the reply's stored text.
    static let stamp = """
        -- Stores each reply with the time it was made.
        return {
          name = "stamp",
          on_reply = function(reply) return reply.stored .. " @" .. os.time() end,
        }
        """

    /// `scores`: reads the model's scores before each token, and changes nothing.
    static let scores = """
        -- Reads the scores before each token.
        return { name = "scores", on_logits = function(logits) end }
        """

    let plugins: URL

    init() throws {
        plugins = try ScratchPlugins.folder(["tag": ScratchPlugins.tag, "stamp": Self.stamp, "scores": Self.scores])
    }

    func result(_ text: String, cache: (any ReplyCache)? = MemoryCache()) async throws -> ScriptResult {
        var runner = ScriptRunner(backends: SequentialBackends(models: FixedModelProvider(ScriptedModel.echo())))
        runner.locator = PluginLocator(directories: [plugins])
        runner.replyCache = cache.map { cache in { @Sendable (_: CaseIdentity) in cache } }
        let file = plugins.appendingPathComponent("case-\(UUID().uuidString).tide")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return await runner.run(file: file.path)
    }

    @Test(arguments: [
        ("@temperature 0\nuser: hello\nuser: again\n", true),
        ("@temperature 0.8\n@seed 3\nuser: hello\n", true),
        ("@temperature 0\n@plugin tag\nuser: hello\nexpect: contains \"nowhere\"\n", true),
        ("@temperature 0\n@plugin scores\nuser: hello\n", true),
        ("@temperature 0.8\nuser: hello\n", false),
        ("@temperature 0\nuser: hello\nexpect: ttft <= 100000 ms\n", false),
        ("@temperature 0\n@plugin stamp\nuser: hello\n", false),
        ("@temperature 0\nuser: hello\nexpect-lua: os.clock() >= 0\n", false),
    ])
    func aCaseIsDeterminedWhenEverythingThatDecidedItIsInItsIdentity(script: String, determined: Bool) async throws {
        let result = try await result(script)
        #expect(result.failure == nil)
        #expect(!result.replies.isEmpty)
        #expect(result.replies.allSatisfy { $0.hookFailures.isEmpty })
        #expect(result.determined == determined, "\(script)")
    }

    @Test func withoutAReplyCacheNothingIsSaid() async throws {
        let result = try await result("@temperature 0\nuser: hello\n", cache: nil)
        #expect(result.determined == nil)
        #expect(result.replies.first?.statistics.determined == nil)
    }

    @Test func aCaseThatFailsIsNotDetermined() async throws {
        let result = try await result("@temperature 0\n@plugin nowhere-to-be-found\nuser: hello\n")
        #expect(result.failure != nil)
        #expect(result.determined != true)
    }
}
