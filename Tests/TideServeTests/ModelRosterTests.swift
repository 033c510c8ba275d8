import Foundation
import Synchronization
import Testing
import TideCore
import TideProvider
@testable import TideServe
import TideTestSupport

/// The served models' roster on scripted models: loaded on demand and once, unloaded least
/// recently used first to make room, never while a request holds them, within the memory budget.
/// The same roster on real models is tested through `tide serve` (ServeModelsTests).
@Suite struct ModelRosterTests {
    /// Counts each model's loads.
    final class Loads: Sendable {
        private let counts = Mutex<[String: Int]>([:])
        func count(_ name: String) -> Int { counts.withLock { $0[name] ?? 0 } }
        func add(_ name: String) { counts.withLock { $0[name, default: 0] += 1 } }
    }

    /// A scripted model served as `name`, of `megabytes` estimated, whose load takes `delay`;
    /// `fails` makes every load fail.
    static func model(_ name: String, megabytes: Int64 = 100, loads: Loads, delay: Duration = .zero, fails: Bool = false) -> ServedModel {
        ServedModel(configuration: ServeConfiguration(modelName: name), sequences: 2, footprint: {
            ModelFootprint(weightBytes: megabytes << 20, cacheBytes: 0, contextSize: 4096)
        }, load: {
            loads.add(name)
            if delay > .zero { Thread.sleep(forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18) }
            if fails { throw ScriptedFailure() }
            return ModelLoad(batch: try #require(try ScriptedModel.echo(name: name).makeBatch(ModelSetup(), sequences: 2, contextSize: nil)))
        })
    }

    struct ScriptedFailure: Error, CustomStringConvertible {
        var description: String { "the file is not a GGUF file" }
    }

    static func roster(_ models: [ServedModel], limits: LoadingLimits = LoadingLimits(), defaultModel: String? = nil) -> ModelRoster {
        ModelRoster(models: models, limits: limits, defaultModel: defaultModel, strict: false, note: { _ in })
    }

    /// The names of the loaded models.
    static func loaded(_ roster: ModelRoster) async -> Set<String> {
        Set(await roster.listing(created: 0).filter { $0.loaded == true }.map(\.id))
    }

    @Test func requestsRacingToLoadOneModelLoadItOnce() async throws {
        let loads = Loads()
        let roster = Self.roster([Self.model("a", loads: loads, delay: .milliseconds(200)), Self.model("b", loads: loads)])
        #expect(await Self.loaded(roster).isEmpty)
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<8 { group.addTask { try await roster.lease("a").name } }
            for try await name in group { #expect(name == "a") }
        }
        #expect(loads.count("a") == 1)
        #expect(loads.count("b") == 0)
        #expect(await Self.loaded(roster) == ["a"])
    }

    @Test func theLeastRecentlyUsedIdleModelIsUnloadedForAnother() async throws {
        let loads = Loads()
        let roster = Self.roster(["a", "b", "c"].map { Self.model($0, loads: loads) }, limits: LoadingLimits(maximumLoaded: 2))
        _ = try await roster.lease("a")
        _ = try await roster.lease("b")
        _ = try await roster.lease("a")
        // Giving a lease back is a task of its own: wait until a and b are idle.
        try await Self.waitUntil { await roster.idleCount == 2 }
        _ = try await roster.lease("c")
        #expect(await Self.loaded(roster) == ["a", "c"])
        #expect(loads.count("a") == 1)
    }

    @Test func aModelWithARequestInFlightIsNeverUnloaded() async throws {
        let loads = Loads()
        let roster = Self.roster([Self.model("a", loads: loads), Self.model("b", loads: loads)], limits: LoadingLimits(maximumLoaded: 1))
        var held: ModelLease? = try await roster.lease("a")
        let other = Task { try await roster.lease("b").name }
        // However long b's request waits, a stays loaded while its lease is held.
        try await Task.sleep(for: .milliseconds(300))
        #expect(await Self.loaded(roster) == ["a"])
        #expect(loads.count("b") == 0)
        #expect(held?.name == "a")
        held = nil
        #expect(try await other.value == "b")
        #expect(await Self.loaded(roster) == ["b"])
    }

    @Test func theBudgetUnloadsOnlyWhatMustGo() async throws {
        let loads = Loads()
        let roster = Self.roster([Self.model("a", megabytes: 100, loads: loads), Self.model("b", megabytes: 100, loads: loads),
                                  Self.model("c", megabytes: 150, loads: loads)], limits: LoadingLimits(memoryBudget: 250 << 20))
        _ = try await roster.lease("a")
        _ = try await roster.lease("b")
        try await Self.waitUntil { await roster.idleCount == 2 }
        #expect(await Self.loaded(roster) == ["a", "b"])
        // c needs 150 MiB: a, used least recently, goes; b fits beside c.
        _ = try await roster.lease("c")
        #expect(await Self.loaded(roster) == ["b", "c"])
    }

    @Test func aModelOverTheWholeBudgetIsRefusedWithTheNumbers() async throws {
        let roster = Self.roster([Self.model("big", megabytes: 300, loads: Loads())], limits: LoadingLimits(memoryBudget: 200 << 20))
        let error = try await #require(throws: APIError.self) { _ = try await roster.lease("big") }
        #expect(error.status.code == 400)
        #expect(error.body.error.code == "model_over_budget")
        #expect(error.body.error.message.contains("needs about 300 MiB (300 MiB of weights and 0 MiB of KV cache for 2 sequences of 4096 tokens)"))
        #expect(error.body.error.message.contains("memory budget of 200 MiB"))
    }

    @Test func aLoadThatFailsIsThatRequestsErrorAndTheOthersGoOn() async throws {
        let loads = Loads()
        let roster = Self.roster([Self.model("broken", loads: loads, fails: true), Self.model("good", loads: loads)],
                                 limits: LoadingLimits(maximumLoaded: 1))
        let error = try await #require(throws: APIError.self) { _ = try await roster.lease("broken") }
        #expect(error.status.code == 500)
        #expect(error.body.error.code == "model_load_failed")
        #expect(error.body.error.message == "The model 'broken' could not be loaded: the file is not a GGUF file")
        #expect(try await roster.lease("good").name == "good")
        // A later request tries again.
        _ = try? await roster.lease("broken")
        #expect(loads.count("broken") == 2)
    }

    @Test func anIdleModelIsUnloadedAfterItsTime() async throws {
        let roster = Self.roster([Self.model("a", loads: Loads())], limits: LoadingLimits(idleUnload: .milliseconds(100)))
        _ = try await roster.lease("a")
        try await Self.waitUntil { await Self.loaded(roster).isEmpty }
        // Loaded again on the next request.
        #expect(try await roster.lease("a").name == "a")
    }

    @Test func namesChooseAModelAndUnknownOnesAreRefused() async throws {
        let loads = Loads()
        let two = Self.roster([Self.model("a", loads: loads), Self.model("B", loads: loads)])
        #expect(try two.index(of: "b") == 1)
        let unknown = try #require(throws: APIError.self) { try two.index(of: "gpt-4o") }
        #expect(unknown.status.code == 404)
        #expect(unknown.body.error.code == "model_not_found")
        #expect(unknown.body.error.message == "The model 'gpt-4o' does not exist; this server serves 'a', 'B'")
        let missing = try #require(throws: APIError.self) { try two.index(of: nil) }
        #expect(missing.status.code == 400)
        #expect(missing.body.error.param == "model")
        let withDefault = Self.roster([Self.model("a", loads: loads), Self.model("B", loads: loads)], defaultModel: "b")
        #expect(try withDefault.index(of: nil) == 1)
        #expect(try withDefault.index(of: "") == 1)
        // A server of one model takes any name for it, unless strict.
        let one = Self.roster([Self.model("a", loads: loads)])
        #expect(try one.index(of: "gpt-4o") == 0)
    }

    /// Waits until `condition` holds (at most 30 s, polling).
    static func waitUntil(_ condition: () async -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !(await condition()) {
            guard ContinuousClock.now < deadline else {
                Issue.record("the condition did not hold within 30 s")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
