import Crypto
import Foundation
import Synchronization
import Testing
@testable import TideModels
import TideTestSupport

@Suite struct ModelPullerTests {
    let server: LocalFileServer
    let store: ModelStore

    init() throws {
        server = try LocalFileServer()
        store = ModelStore(directory: server.directory.appendingPathComponent("store"))
    }

    func sha256(_ data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }

    @Test func pullsAFileAndChecksIt() async throws {
        let data = try server.publish("model.gguf", size: 2_000_000)
        let result = try await ModelPuller(store: store).pull(url: server.url("model.gguf"), sha256: sha256(data)) { _ in }
        #expect(result.verified)
        #expect(result.path == store.directory.appendingPathComponent("model.gguf"))
        #expect(try Data(contentsOf: result.path) == data)
        #expect(!FileManager.default.fileExists(atPath: result.path.path + ".partial"))
    }

    @Test func resumesADroppedDownload() async throws {
        let data = try server.publish("model.gguf", size: 3_000_000)
        let puller = ModelPuller(store: store)
        await #expect(throws: (any Error).self) {
            _ = try await puller.pull(url: server.url("drop-after/1000000/model.gguf"), sha256: sha256(data)) { _ in }
        }
        let partial = store.directory.appendingPathComponent("model.gguf.partial")
        let kept = try #require(try FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? NSNumber)
        #expect(kept.intValue > 0 && kept.intValue <= 1_000_000)
        #expect(!FileManager.default.fileExists(atPath: store.directory.appendingPathComponent("model.gguf").path))

        let result = try await puller.pull(url: server.url("model.gguf"), sha256: sha256(data)) { _ in }
        #expect(result.verified)
        #expect(try Data(contentsOf: result.path) == data)
        #expect(server.requests.last == "/model.gguf bytes=\(kept.intValue)-")
    }

    @Test func aWrongChecksumDeletesTheFile() async throws {
        _ = try server.publish("model.gguf", size: 100_000)
        let wrong = String(repeating: "0", count: 64)
        do {
            _ = try await ModelPuller(store: store).pull(url: server.url("model.gguf"), sha256: wrong) { _ in }
            Issue.record("a file with the wrong checksum was accepted")
        } catch let ModelFetchError.checksumMismatch(expected, actual) {
            #expect(expected == wrong)
            #expect(actual.count == 64)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.directory.path).isEmpty)
    }

    @Test func httpErrorsCarryTheStatusAndBody() async throws {
        do {
            _ = try await ModelPuller(store: store).pull(url: server.url("missing.gguf"), sha256: nil) { _ in }
            Issue.record("a 404 was accepted")
        } catch let ModelFetchError.httpStatus(status, url, body) {
            #expect(status == 404)
            #expect(url.hasSuffix("/missing.gguf"))
            #expect(body.contains("no such file"))
        }
    }

    @Test func reportsProgressUpToTheWholeSize() async throws {
        _ = try server.publish("model.gguf", size: 1_500_000)
        let last = Mutex<FetchProgress?>(nil)
        _ = try await ModelPuller(store: store).pull(url: server.url("model.gguf"), sha256: nil) { progress in
            last.withLock { $0 = progress }
        }
        #expect(last.withLock { $0 } == FetchProgress(received: 1_500_000, total: 1_500_000))
    }

    @Test func anAlreadyInstalledFileIsNotFetchedAgain() async throws {
        let data = try server.publish("model.gguf", size: 10_000)
        let puller = ModelPuller(store: store)
        _ = try await puller.pull(url: server.url("model.gguf"), sha256: sha256(data)) { _ in }
        _ = try await puller.pull(url: server.url("model.gguf"), sha256: sha256(data)) { _ in }
        #expect(server.requests.count == 1)
    }

    /// A pull into a full disk was reported as a checksum mismatch.
    @Test(.enabled(if: ScratchFileSystem.available, "needs root to mount a tmpfs"))
    func aFullDiskIsReportedAsSuchAndKeepsThePartialFile() async throws {
        let data = try server.publish("model.gguf", size: 3_000_000)
        let disk = try ScratchFileSystem(bytes: 2 << 20)
        let small = ModelStore(directory: disk.folder.appendingPathComponent("models"))
        do {
            _ = try await ModelPuller(store: small).pull(url: server.url("model.gguf"), sha256: sha256(data)) { _ in }
            Issue.record("a 3 MB model was pulled onto a 2 MiB disk")
        } catch let error as ModelFetchError {
            guard case .noSpace(let folder, let needed, let available) = error else {
                Issue.record("expected noSpace, got \(error)")
                return
            }
            #expect(folder == small.directory.path)
            #expect(needed == 3_000_000)
            #expect((available ?? .max) < 2_100_000)
            #expect(error.description.hasPrefix("no space left in \(small.directory.path): the model needs 3 MB, "))
            #expect(error.description.contains("the part already downloaded is kept"))
        }

        // A partial download, then a disk that fills up: the next pull says so and keeps the part.
        let roomy = try ScratchFileSystem(bytes: 4 << 20)
        let store = ModelStore(directory: roomy.folder.appendingPathComponent("models"))
        await #expect(throws: (any Error).self) {
            _ = try await ModelPuller(store: store).pull(url: server.url("drop-after/1000000/model.gguf"), sha256: sha256(data)) { _ in }
        }
        roomy.fill()
        await #expect(throws: (any Error).self) {
            _ = try await ModelPuller(store: store).pull(url: server.url("model.gguf"), sha256: sha256(data)) { _ in }
        }
        let partial = store.directory.appendingPathComponent("model.gguf.partial")
        #expect(((try FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? NSNumber)?.intValue ?? 0) > 0)
    }

    @Test(.enabled(if: ScratchFileSystem.available, "needs root to mount a tmpfs"))
    func aReadOnlyStoreIsNamedWithWhatToDo() async throws {
        _ = try server.publish("model.gguf", size: 100_000)
        let disk = try ScratchFileSystem(bytes: 1 << 20)
        try disk.makeReadOnly()
        let store = ModelStore(directory: disk.folder.appendingPathComponent("models"))
        do {
            _ = try await ModelPuller(store: store).pull(url: server.url("model.gguf"), sha256: nil) { _ in }
            Issue.record("a model was pulled into a read-only folder")
        } catch let error as ModelFetchError {
            #expect(error == .cannotWrite(path: store.directory.path, reason: "the file system is read-only"))
            #expect(error.description.contains("set XDG_CACHE_HOME to a writable folder"))
        }
    }
}

/// Making a requantized model from its base's file, with a stand-in for llama.cpp.
@Suite struct ModelDerivationTests {
    let entry = ModelRegistry.entry(named: ModelRegistry.defaultModelID)!
    let base = ModelRegistry.entry(named: ModelRegistry.bundledOriginalID)!

    /// A store holding a file of the base's size (sparse: nothing is read but its size).
    func storeWithBase() throws -> ModelStore {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tide-derive-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = ModelStore(directory: folder)
        #expect(FileManager.default.createFile(atPath: store.path(for: base).path, contents: nil))
        let handle = try FileHandle(forWritingTo: store.path(for: base))
        try handle.truncate(atOffset: UInt64(base.sizeBytes!))
        try handle.close()
        return store
    }

    @Test func theRequantizedFileIsWrittenAsideThenRenamed() throws {
        let store = try storeWithBase()
        let calls = Mutex<[String]>([])
        let puller = ModelPuller(store: store) { source, destination, format in
            calls.withLock { $0.append("\(source.lastPathComponent) \(format)") }
            #expect(destination.lastPathComponent.hasPrefix(self.entry.fileName + ".partial."))
            try Data("weights".utf8).write(to: destination)
        }
        let result = try puller.derive(entry)
        #expect(calls.withLock { $0 } == ["\(base.fileName) Q8_0"])
        #expect(result.path == store.path(for: entry))
        #expect(try String(contentsOf: result.path, encoding: .utf8) == "weights")
        // Not the bytes the registry knows: kept, but not verified.
        #expect(!result.verified)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.directory.path).sorted()
            == [base.fileName, entry.fileName].sorted())
    }

    @Test func aFailedRequantizationLeavesNothingBehind() throws {
        let store = try storeWithBase()
        let puller = ModelPuller(store: store) { _, destination, _ in
            try Data("half".utf8).write(to: destination)
            throw ModelFetchError.toolFailed(command: "quantize", status: 1, output: "out of memory")
        }
        #expect(throws: ModelFetchError.toolFailed(command: "quantize", status: 1, output: "out of memory")) { try puller.derive(entry) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.directory.path) == [base.fileName])
    }

    @Test func withoutTheBaseTheErrorNamesTheModelToPull() throws {
        let store = ModelStore(directory: FileManager.default.temporaryDirectory.appendingPathComponent("tide-none-\(UUID().uuidString)"))
        let puller = ModelPuller(store: store) { _, _, _ in Issue.record("nothing to requantize") }
        #expect(throws: ModelLookupError.notInstalled(entry.id, expectedAt: store.path(for: entry).path)) { try puller.derive(entry) }
    }
}
