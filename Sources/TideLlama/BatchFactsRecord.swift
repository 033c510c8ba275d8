import CLlama
import Foundation
import TideFiles

/// What ``LlamaModel/batchFacts(threads:kernel:)`` found, kept across processes
/// in `$XDG_CACHE_HOME/tide/batch-facts.json`, so that a command that drafts a reply, or decides
/// its thread count (``ThreadShare``), does not pay the probe (16 one-token decodes on every
/// thread and 16 on one, and a batch: about a third of a second for the bundled model on two
/// cores) every time it starts.
///
/// A finding holds for one model file (its path, size and modification time), thread count and
/// attention kernel, on one llama.cpp library (its file and modification time, and the CPU
/// features it uses); anything else is probed again. A file that cannot be read or written is
/// ignored: the probe runs, as without it.
struct BatchFactsRecord {
    /// The finding's key.
    let key: String
    /// The file of findings.
    let file: URL

    init(model: LlamaModel, threads: Int, kernel: AttentionKernel, environment: [String: String] = ProcessInfo.processInfo.environment) {
        key = [Self.identity(of: model.path), "threads \(threads)", kernel.description,
               Self.libraryIdentity].joined(separator: " | ")
        let cache = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache")
        file = cache.appendingPathComponent("tide/batch-facts.json")
    }

    /// The finding kept for this key, if any.
    func read() -> BatchFacts? {
        guard let data = try? Data(contentsOf: file),
              let findings = try? JSONDecoder().decode([String: BatchFacts].self, from: data),
              let facts = findings[key], facts.checkCosts.count == BatchFacts.chunkSizes.count else { return nil }
        return facts
    }

    /// Keeps `facts` for this key, with the other keys' findings (at most 64 in all: others go,
    /// in no particular order, when the file is full).
    func write(_ facts: BatchFacts) {
        var findings = (try? Data(contentsOf: file)).flatMap { try? JSONDecoder().decode([String: BatchFacts].self, from: $0) } ?? [:]
        while findings.count >= 64, let any = findings.keys.first(where: { $0 != key }) { findings[any] = nil }
        findings[key] = facts
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        guard let data = try? encoder.encode(findings) else { return }
        try? OutputFile.write(data, to: file.path, what: "the batch probe's findings")
    }

    /// A file's path, size and modification time.
    static func identity(of path: String) -> String {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return path }
        let size = (attributes[.size] as? NSNumber)?.int64Value ?? -1
        let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? -1
        return "\(path) \(size) bytes \(modified)"
    }

    /// The llama.cpp library loaded (its file, as the process's memory map names it) and the CPU
    /// features it was built for.
    static let libraryIdentity: String = {
        // Read to its end: /proc files say they are empty.
        let maps = FileHandle(forReadingAtPath: "/proc/self/maps").map { String(decoding: $0.readDataToEndOfFile(), as: UTF8.self) } ?? ""
        let path = maps.split(separator: "\n").lazy.compactMap { line in
            line.split(separator: " ", omittingEmptySubsequences: true).last.map(String.init)
        }.first { URL(fileURLWithPath: $0).lastPathComponent.hasPrefix("libllama.") }
        return (path.map { identity(of: $0) } ?? "llama.cpp linked in") + " " + String(cString: llama_print_system_info())
    }()
}
