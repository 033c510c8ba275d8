import Crypto
import Foundation
import TideCore

/// The replies of one scope of a ``CacheStore``: a reply is kept under the SHA-256 of the scope,
/// its parameters (as JSON with sorted keys), its prompt's fingerprint and the recording teacher
/// forcing checks it against.
struct ScopedReplyCache: ReplyCache {
    let store: CacheStore
    /// What decides the replies besides their prompts and parameters: the model file, the
    /// plugins and their files, the settings, Tide's version.
    let scope: String

    func reply(for key: ReplyCacheKey) async -> CachedReply? {
        guard let digest = digest(of: key) else { return nil }
        return await store.reply(for: digest)
    }

    func store(_ reply: CachedReply, for key: ReplyCacheKey) async {
        guard let digest = digest(of: key) else { return }
        await store.store(reply, for: digest)
    }

    /// The key's digest; `nil` for parameters that do not encode (none do).
    private func digest(of key: ReplyCacheKey) -> Data? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard let parameters = try? encoder.encode(key.parameters) else { return nil }
        var hash = SHA256()
        let forcing = key.forcing.map { Data([1] + $0.utf8) } ?? Data([0])
        for part in [Data(scope.utf8), parameters, Data(key.prompt), forcing] {
            withUnsafeBytes(of: UInt64(part.count).littleEndian) { hash.update(bufferPointer: $0) }
            hash.update(data: part)
        }
        return Data(hash.finalize())
    }
}
