import Foundation
import GRDB
import Synchronization
import Testing
import TideCache
import TideCore

/// The reply cache's SQLite store: replies kept by scope and key, a damaged one dropped, the
/// size bounded with the least recently given going first, two processes' stores on one file,
/// and a folder that cannot be written degrading to no cache with one warning.
@Suite struct CacheStoreTests {
    private static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tide-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    private static func open(folder: URL, limit: Int = CacheStore.defaultLimit,
                             warn: @escaping @Sendable (String) -> Void) throws -> CacheStore {
        let store = CacheStore.open(folder: folder, limit: limit, warn: warn)
        return try #require(store)
    }

    private static func reply(_ text: String, padding: Int = 0) -> CachedReply {
        var reply = CachedReply(promptTokenCount: 3)
        reply.steps = [.next(.token(id: 7, bytes: Array(text.utf8) + Array(repeating: 32, count: padding)), logprob: nil),
                       .next(.endOfGeneration, logprob: nil)]
        return reply
    }

    private static func key(_ prompt: String) -> ReplyCacheKey {
        ReplyCacheKey(prompt: Array(prompt.utf8), parameters: GenerationParameters())
    }

    /// Warnings said, in order.
    final class Warnings: Sendable {
        let said = Mutex<[String]>([])
        var all: [String] { said.withLock { $0 } }
        var warn: @Sendable (String) -> Void { { line in self.said.withLock { $0.append(line) } } }
    }

    @Test func aReplyIsKeptInItsScopeUnderItsWholeKey() async throws {
        let store = try Self.open(folder: try Self.folder(), warn: { _ in })
        let cache = store.replies("model A")
        await cache.store(Self.reply("Paris"), for: Self.key("capital?"))
        #expect(await cache.reply(for: Self.key("capital?")) == Self.reply("Paris"))
        #expect(await store.replies("model B").reply(for: Self.key("capital?")) == nil, "another scope")
        #expect(await cache.reply(for: Self.key("capital!")) == nil, "another prompt")
        var seeded = Self.key("capital?")
        seeded.parameters.seed = 1
        #expect(await cache.reply(for: seeded) == nil, "another parameter")
        var forced = Self.key("capital?")
        forced.forcing = "Paris"
        #expect(await cache.reply(for: forced) == nil, "checking a recording")
        #expect(try store.totals().replies == 1)
    }

    @Test func aDamagedOrTruncatedReplyIsDroppedNotTrusted() async throws {
        let folder = try Self.folder()
        let store = try Self.open(folder: folder, warn: { _ in })
        let cache = store.replies("s")
        await cache.store(Self.reply("kept"), for: Self.key("a"))
        await cache.store(Self.reply("flipped"), for: Self.key("b"))
        await cache.store(Self.reply("cut"), for: Self.key("c"))
        // Another connection damages two rows as a crash or a bad disk might.
        let database = try DatabaseQueue(path: store.path.path)
        try await database.write { db in
            let rows = try Row.fetchAll(db, sql: "SELECT key, value FROM reply")
            for row in rows {
                var value: Data = row["value"]
                if String(decoding: value, as: UTF8.self).contains(String(Array("flipped".utf8).map(String.init).joined(separator: ","))) {
                    value[value.count / 2] ^= 0x01
                } else if String(decoding: value, as: UTF8.self).contains(String(Array("cut".utf8).map(String.init).joined(separator: ","))) {
                    value = value.prefix(value.count / 2)
                } else {
                    continue
                }
                try db.execute(sql: "UPDATE reply SET value = ? WHERE key = ?", arguments: [value, row["key"] as Data])
            }
        }
        #expect(await cache.reply(for: Self.key("a")) == Self.reply("kept"))
        #expect(await cache.reply(for: Self.key("b")) == nil)
        #expect(await cache.reply(for: Self.key("c")) == nil)
        #expect(try store.totals().replies == 1, "the damaged rows are gone")
    }

    /// A case's result is kept under its key as what the caller encodes; a damaged one, or one
    /// that does not decode as asked, is dropped; cases count in the bound with the replies.
    @Test func aCaseResultIsKeptUnderItsKeyAndADamagedOneIsDropped() async throws {
        struct Outcome: Codable, Equatable { var verdicts: [Bool] }
        let folder = try Self.folder()
        let store = try Self.open(folder: folder, warn: { _ in })
        await store.storeCaseResult(Outcome(verdicts: [true, false]), for: Data("case a".utf8))
        await store.storeCaseResult(Outcome(verdicts: [true]), for: Data("case b".utf8))
        #expect(await store.caseResult(for: Data("case a".utf8), as: Outcome.self) == Outcome(verdicts: [true, false]))
        #expect(await store.caseResult(for: Data("case c".utf8), as: Outcome.self) == nil)
        #expect(await store.caseResult(for: Data("case a".utf8), as: CachedReply.self) == nil, "not what was kept: dropped")
        #expect(await store.caseResult(for: Data("case a".utf8), as: Outcome.self) == nil)
        let database = try DatabaseQueue(path: store.path.path)
        try await database.write { db in
            try db.execute(sql: "UPDATE case_result SET value = substr(value, 1, 5) WHERE key = ?", arguments: [Data("case b".utf8)])
        }
        #expect(await store.caseResult(for: Data("case b".utf8), as: Outcome.self) == nil)
        #expect(try store.totals().cases == 0)

        let probe = try Self.open(folder: try Self.folder(), warn: { _ in })
        await probe.storeCaseResult(Outcome(verdicts: Array(repeating: true, count: 200)), for: Data("probe".utf8))
        let size = try probe.totals().bytes
        let bounded = try Self.open(folder: try Self.folder(), limit: size * 2, warn: { _ in })
        await bounded.storeCaseResult(Outcome(verdicts: Array(repeating: true, count: 200)), for: Data("old".utf8))
        try await Task.sleep(for: .milliseconds(5))
        await bounded.replies("s").store(Self.reply("x", padding: size / 2), for: Self.key("new"))
        #expect(await bounded.caseResult(for: Data("old".utf8), as: Outcome.self) == nil, "the case given least recently went first")
        #expect(try bounded.totals().bytes <= size * 2)
    }

    @Test func theCacheKeepsToItsSizeDroppingTheRepliesGivenLeastRecently() async throws {
        let folder = try Self.folder()
        let probe = try Self.open(folder: folder, warn: { _ in })
        await probe.replies("s").store(Self.reply("x", padding: 1000), for: Self.key("probe"))
        let size = try probe.totals().bytes
        let store = try Self.open(folder: try Self.folder(), limit: size * 3, warn: { _ in })
        let cache = store.replies("s")
        for name in ["one", "two", "three"] {
            await cache.store(Self.reply("x", padding: 1000), for: Self.key(name))
            try await Task.sleep(for: .milliseconds(5))
        }
        // "one" is given, so "two" is now the least recently given.
        #expect(await cache.reply(for: Self.key("one")) != nil)
        try await Task.sleep(for: .milliseconds(5))
        await cache.store(Self.reply("x", padding: 1000), for: Self.key("four"))
        #expect(await cache.reply(for: Self.key("two")) == nil)
        for name in ["one", "three", "four"] { #expect(await cache.reply(for: Self.key(name)) != nil, "\(name)") }
        #expect(try store.totals().bytes <= size * 3)
    }

    @Test func twoStoresOnOneFileWriteAtOnceAndReadEachOthers() async throws {
        let folder = try Self.folder()
        let first = try Self.open(folder: folder, warn: { _ in })
        let second = try Self.open(folder: folder, warn: { _ in })
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                let cache = (index.isMultiple(of: 2) ? first : second).replies("s")
                group.addTask { await cache.store(Self.reply("r\(index)"), for: Self.key("k\(index)")) }
            }
        }
        for index in 0..<40 {
            let cache = (index.isMultiple(of: 2) ? second : first).replies("s")
            #expect(await cache.reply(for: Self.key("k\(index)")) == Self.reply("r\(index)"))
        }
    }

    @Test func aFolderThatCannotBeWrittenIsNoCacheWithOneWarning() async throws {
        // A folder under a regular file cannot be made, whoever runs the test.
        let file = try Self.folder().appendingPathComponent("plain")
        try Data("x".utf8).write(to: file)
        let warnings = Warnings()
        #expect(CacheStore.open(folder: file.appendingPathComponent("replies"), warn: warnings.warn) == nil)
        #expect(warnings.all.count == 1)
        #expect(warnings.all.first?.contains("cannot be written") == true, "\(warnings.all)")

        // A cache whose writes start failing says so once, and goes on without keeping.
        let folder = try Self.folder()
        let later = Warnings()
        let store = try Self.open(folder: folder, warn: later.warn)
        let blocker = try DatabaseQueue(path: store.path.path)
        try await blocker.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA query_only = 0; DROP TABLE reply") }
        await store.replies("s").store(Self.reply("a"), for: Self.key("a"))
        await store.replies("s").store(Self.reply("b"), for: Self.key("b"))
        #expect(later.all.count == 1, "\(later.all)")
        #expect(await store.replies("s").reply(for: Self.key("a")) == nil)
    }

    @Test func theStateSharingTheLongestStartIsGivenAndADamagedOneIsDropped() throws {
        let folder = try Self.folder()
        let store = try Self.open(folder: folder, warn: { _ in })
        let states = store.promptStates("model")
        states.keep([1, 1, 1], tokens: Array(0..<300))
        states.keep([2, 2, 2], tokens: Array(0..<200) + Array(500..<600))
        // A prompt whose first 250 tokens are the first state's: it shares more with it.
        let found = try #require(states.longestPrefix(of: Array(0..<250) + [9, 9]))
        #expect(found.state == [1, 1, 1])
        #expect(found.sharedCount == 250)
        #expect(found.tokens == Array(0..<300))
        #expect(states.longestPrefix(of: Array(0..<200) + Array(500..<520))?.state == [2, 2, 2])
        #expect(store.promptStates("another model").longestPrefix(of: Array(0..<250)) == nil)
        #expect(states.longestPrefix(of: [7, 8, 9]) == nil, "nothing shared")

        // The first state's file damaged: the second is given instead, and the first is gone.
        let files = try FileManager.default.contentsOfDirectory(at: folder.appendingPathComponent("states"), includingPropertiesForKeys: nil)
        for file in files where try Data(contentsOf: file) == Data([1, 1, 1]) { try Data([1, 0, 1]).write(to: file) }
        #expect(states.longestPrefix(of: Array(0..<250))?.state == [2, 2, 2])
        #expect(try store.totals().states == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("states").path).count == 1)
    }

    @Test func statesCountInTheSizeAndTheirFilesGoWithThem() async throws {
        let folder = try Self.folder()
        let store = try Self.open(folder: folder, limit: 3000, warn: { _ in })
        let states = store.promptStates("model")
        states.keep(Array(repeating: 1, count: 1000), tokens: [1, 2, 3])
        try await Task.sleep(for: .milliseconds(5))
        states.keep(Array(repeating: 2, count: 1000), tokens: [4, 5, 6])
        try await Task.sleep(for: .milliseconds(5))
        // A reply of some 1200 bytes (each byte a number in its JSON) makes 3200: the oldest state goes.
        await store.replies("s").store(Self.reply("x", padding: 300), for: Self.key("a"))
        #expect(await store.replies("s").reply(for: Self.key("a")) != nil)
        #expect(states.longestPrefix(of: [1, 2, 3])?.sharedCount == nil, "the oldest went")
        #expect(states.longestPrefix(of: [4, 5, 6])?.sharedCount == 3)
        #expect(try store.totals().bytes <= 3000)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("states").path).count == 1)
    }
}
