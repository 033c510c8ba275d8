import Foundation
import TideCore

import TideOpenAI

/// How many served models may be in memory at once, and for how long an idle one stays:
/// `tide serve --max-loaded`, `--memory-budget` and `--idle-unload`.
public struct LoadingLimits: Sendable, Hashable {
    /// The most models loaded at once; `nil` for no limit.
    public var maximumLoaded: Int?
    /// The most bytes the loaded models' weights and KV caches may take together, by their
    /// estimates (``TideCore/ModelFootprint``); `nil` for no limit.
    public var memoryBudget: Int64?
    /// How long a model no request uses stays loaded; `nil` for as long as there is room.
    public var idleUnload: Duration?

    /// Limits; none by default.
    public init(maximumLoaded: Int? = nil, memoryBudget: Int64? = nil, idleUnload: Duration? = nil) {
        self.maximumLoaded = maximumLoaded
        self.memoryBudget = memoryBudget
        self.idleUnload = idleUnload
    }
}

/// The models a server serves, each loaded on its first request and kept while there is room:
/// when another must load and the limits (``LoadingLimits``) leave no room, the idle model used
/// least recently is unloaded; a model with a request in flight (waiting for a sequence,
/// decoding, streaming) never is — the load waits for one to become idle. Requests racing to
/// load one model load it once; the others keep being served meanwhile, since a load runs on a
/// thread of its own. Each model decodes in its own batch (one engine per model, as Ollama and
/// llama-server's router run one runner per model).
actor ModelRoster {
    private struct Entry {
        let model: ServedModel
        var loaded: LoadedModel?
        var loading: Task<LoadedModel, any Error>?
        /// Leases given and not given back, and requests waiting for the model to load.
        var inFlight = 0
        var lastUsed = ContinuousClock.now
        /// Its estimated footprint, read before its first load.
        var footprint: ModelFootprint?
        /// When it was loaded last; an idle-unload timer set before then does nothing.
        var loads = 0
        /// The timer that unloads it once idle for `--idle-unload`: one per model, started again
        /// each time its last request ends, stopped when a request takes it.
        var idleTimer: Task<Void, Never>?
    }

    private var entries: [Entry]
    private let limits: LoadingLimits
    /// The model of a request that names none (`--default-model`); `nil` when several are
    /// served without one, which makes `model` required.
    private let defaultIndex: Int?
    /// Whether a request must name a served model; a server of one model takes any name for it
    /// unless `--strict-model`, as llama-server does.
    private let strict: Bool
    private var roomWaiters: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
    private var nextWaiter = 0
    private let note: @Sendable (String) -> Void
    /// Every served model's name, in the order given.
    nonisolated let names: [String]

    /// A roster of `models`, none loaded, within `limits`.
    init(models: [ServedModel], limits: LoadingLimits, defaultModel: String?, strict: Bool, note: @escaping @Sendable (String) -> Void) {
        entries = models.map { Entry(model: $0) }
        names = models.map(\.name)
        self.limits = limits
        defaultIndex = defaultModel.flatMap { name in models.firstIndex { $0.name.lowercased() == name.lowercased() } }
            ?? (models.count == 1 ? 0 : nil)
        self.strict = strict || models.count > 1
        self.note = note
    }

    /// A roster of one model, loaded already: a server started on a batch.
    init(loaded model: ServedModel, batch: any BackendBatch, strict: Bool) throws {
        var entry = Entry(model: model)
        entry.loaded = try LoadedModel(ModelLoad(batch: batch, placement: model.configuration.placement), configuration: model.configuration)
        entry.loads = 1
        entries = [entry]
        names = [model.name]
        limits = LoadingLimits()
        defaultIndex = 0
        self.strict = strict
        note = { _ in }
    }

    /// Which served model `name` (a request's `model`) means: a 404 in OpenAI's shape
    /// (`model_not_found`) naming the served models when it is none of them; a 400 when it is
    /// missing and there is no default.
    nonisolated func index(of name: String?) throws(APIError) -> Int {
        let served = names.map { "'\($0)'" }.joined(separator: ", ")
        guard let name, !name.isEmpty else {
            guard let index = defaultIndex else {
                throw .invalid("model is missing: this server serves \(served); name one (tide serve --default-model chooses one "
                                   + "for requests that do not)", param: "model")
            }
            return index
        }
        if let index = names.firstIndex(where: { $0.lowercased() == name.lowercased() }) { return index }
        if !strict, let defaultIndex { return defaultIndex }
        throw APIError(status: 404, message: "The model '\(name)' does not exist; this server serves " + served,
                       code: "model_not_found", param: "model")
    }

    /// A lease on the model `name` names (``index(of:)``), loading it first if need be — after
    /// unloading idle models to make room, or waiting until one is idle. Throws
    /// `CancellationError` when the request's task is cancelled while it waits for room.
    func lease(_ name: String?) async throws -> ModelLease {
        let index = try index(of: name)
        entries[index].inFlight += 1
        entries[index].idleTimer?.cancel()
        entries[index].idleTimer = nil
        do {
            let model = try await loaded(index)
            entries[index].lastUsed = .now
            return ModelLease(model) { Task { await self.giveBack(index) } }
        } catch {
            giveBack(index)
            throw error
        }
    }

    /// Whether the model at `index` is in memory.
    func isLoaded(_ index: Int) -> Bool { entries[index].loaded != nil }

    /// How many models are loaded with no request holding them.
    var idleCount: Int { entries.count { $0.loaded != nil && $0.inFlight == 0 } }

    /// The loaded models; loads nothing.
    var loadedModels: [LoadedModel] { entries.compactMap(\.loaded) }

    /// What `GET /v1/models` lists: every served model, whether it is loaded, the context one
    /// request may fill, and where it runs once loaded.
    func listing(created: Int) -> [ModelList.Model] {
        entries.map { entry in
            var item = ModelList.Model(id: entry.model.name, created: created, ownedBy: "tide")
            item.purpose = "chat"
            item.loaded = entry.loaded != nil
            item.contextLength = entry.loaded?.contextSize ?? entry.footprint?.contextSize
            item.runsOn = entry.loaded?.configuration.placement
            return item
        }
    }

    /// Unloads every model, after the loads in progress end: the server has stopped.
    func shutdown() async {
        for index in entries.indices {
            if let loading = entries[index].loading { _ = try? await loading.value }
        }
        for index in entries.indices { unload(index) }
    }

    private func giveBack(_ index: Int) {
        entries[index].inFlight -= 1
        entries[index].lastUsed = .now
        guard entries[index].inFlight == 0 else { return }
        wakeRoomWaiters()
        if let idle = limits.idleUnload, entries[index].loaded != nil {
            let loads = entries[index].loads
            entries[index].idleTimer?.cancel()
            entries[index].idleTimer = Task {
                guard (try? await Task.sleep(for: idle)) != nil else { return }
                await self.unloadIfIdle(index, loads: loads, for: idle)
            }
        }
    }

    private func unloadIfIdle(_ index: Int, loads: Int, for idle: Duration) {
        let entry = entries[index]
        guard entry.loaded != nil, entry.loads == loads, entry.inFlight == 0, ContinuousClock.now - entry.lastUsed >= idle else { return }
        note("unloading \(entry.model.name): idle for \(idle.formatted(.units(allowed: [.seconds], width: .wide)))")
        unload(index)
    }

    /// The model at `index`, loaded: at once when it is, after the load in progress when another
    /// request started one, else loaded now once there is room.
    private func loaded(_ index: Int) async throws -> LoadedModel {
        while true {
            if let model = entries[index].loaded { return model }
            if let loading = entries[index].loading {
                do {
                    return try await loading.value
                } catch {
                    throw Self.loadFailure(error, name: entries[index].model.name)
                }
            }
            let footprint = try self.footprint(index)
            if try await makeRoom(for: index, footprint: footprint) { break }
        }
        let model = entries[index].model
        let task = Task<LoadedModel, any Error> {
            try await Self.onThread {
                let load = try model.load()
                do {
                    return try LoadedModel(load, configuration: model.configuration)
                } catch {
                    load.batch.shutdown()
                    throw error
                }
            }
        }
        entries[index].loading = task
        note("loading \(model.name)")
        do {
            let loaded = try await task.value
            entries[index].loading = nil
            entries[index].loaded = loaded
            entries[index].loads += 1
            return loaded
        } catch {
            entries[index].loading = nil
            wakeRoomWaiters()
            throw Self.loadFailure(error, name: model.name)
        }
    }

    /// The footprint of the model at `index`, read once; a model over the whole budget is refused
    /// with the numbers.
    private func footprint(_ index: Int) throws -> ModelFootprint? {
        if entries[index].footprint == nil {
            do {
                entries[index].footprint = try entries[index].model.footprint()
            } catch {
                throw Self.loadFailure(error, name: entries[index].model.name)
            }
        }
        let footprint = entries[index].footprint
        if let budget = limits.memoryBudget, let footprint, footprint.totalBytes > budget {
            let name = entries[index].model.name
            throw APIError(status: 400, message: "The model '\(name)' needs about \(Self.mebibytes(footprint.totalBytes)) "
                               + "(\(Self.mebibytes(footprint.weightBytes)) of weights and \(Self.mebibytes(footprint.cacheBytes)) of KV cache for "
                               + "\(entries[index].model.sequences) sequences of \(footprint.contextSize) tokens), more than this server's "
                               + "memory budget of \(Self.mebibytes(budget)); it cannot be loaded here (tide serve --memory-budget, "
                               + "--parallel and --ctx-size set these)", code: "model_over_budget", param: "model")
        }
        return footprint
    }

    /// Makes room for the model at `index`: unloads idle models, least recently used first,
    /// until it fits the limits, or waits until a model becomes idle. Returns false when it
    /// waited (the caller looks again: another request may have loaded the model meanwhile).
    private func makeRoom(for index: Int, footprint: ModelFootprint?) async throws -> Bool {
        while true {
            let resident = entries.indices.filter { $0 != index && (entries[$0].loaded != nil || entries[$0].loading != nil) }
            let used = resident.reduce(Int64(0)) { $0 + (entries[$1].footprint?.totalBytes ?? 0) }
            let fitsCount = limits.maximumLoaded.map { resident.count < $0 } ?? true
            let fitsMemory = limits.memoryBudget.map { used + (footprint?.totalBytes ?? 0) <= $0 } ?? true
            if fitsCount, fitsMemory { return true }
            let idle = resident.filter { entries[$0].loaded != nil && entries[$0].inFlight == 0 }
            guard let victim = idle.min(by: { entries[$0].lastUsed < entries[$1].lastUsed }) else {
                try await waitForRoom()
                return false
            }
            note("unloading \(entries[victim].model.name) to make room for \(entries[index].model.name)")
            unload(victim)
        }
    }

    private func unload(_ index: Int) {
        entries[index].idleTimer?.cancel()
        entries[index].idleTimer = nil
        guard let model = entries[index].loaded else { return }
        entries[index].loaded = nil
        model.batch.shutdown()
        ProcessMemory.returnFreed()
    }

    /// Waits until a model becomes idle or a load fails; throws `CancellationError` when the
    /// task is cancelled meanwhile (its client left).
    private func waitForRoom() async throws {
        let id = nextWaiter
        nextWaiter += 1
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    roomWaiters.append((id, continuation))
                }
            }
        } onCancel: {
            Task { await self.cancelWaiter(id) }
        }
    }

    private func cancelWaiter(_ id: Int) {
        guard let position = roomWaiters.firstIndex(where: { $0.id == id }) else { return }
        roomWaiters.remove(at: position).continuation.resume(throwing: CancellationError())
    }

    private func wakeRoomWaiters() {
        let waiters = roomWaiters
        roomWaiters = []
        for waiter in waiters { waiter.continuation.resume() }
    }

    /// A load's failure as the request's error: the model's name and what went wrong.
    private static func loadFailure(_ error: any Error, name: String) -> APIError {
        if let error = error as? APIError { return error }
        return APIError(status: 500, message: "The model '\(name)' could not be loaded: \(error)", type: "server_error",
                        code: "model_load_failed", param: "model")
    }

    static func mebibytes(_ bytes: Int64) -> String { "\(bytes >> 20) MiB" }

    /// Runs `work` on a thread of its own (a load reads a file and blocks for seconds; the
    /// server's tasks share few threads).
    private static func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let thread = Thread { continuation.resume(with: Result { try work() }) }
            thread.name = "tide-model-load"
            thread.stackSize = 8 << 20
            thread.start()
        }
    }
}
