import TideCore

/// How a context computes attention: with flash attention or not, over keys and values stored
/// as which types (``LlamaContextOptions/keyCacheType``, ``LlamaContextOptions/valueCacheType``).
/// Whether llama.cpp scores a batch's tokens as each alone, and what a batch costs, depend on it
/// (``BatchFacts``), so each kernel is probed on its own.
public struct AttentionKernel: Sendable, Hashable, CustomStringConvertible {
    /// Whether flash attention is on.
    public var flashAttention: Bool
    /// How the cache stores keys.
    public var keyCache: KVCacheType
    /// How the cache stores values.
    public var valueCache: KVCacheType

    /// A kernel; Tide's default is flash attention over an f16 cache.
    public init(flashAttention: Bool = true, keyCache: KVCacheType = .f16, valueCache: KVCacheType = .f16) {
        self.flashAttention = flashAttention
        self.keyCache = keyCache
        self.valueCache = valueCache
    }

    /// "flash attention" or "no flash attention", with the cache's types when they are not f16.
    public var description: String {
        (flashAttention ? "flash attention" : "no flash attention")
            + (keyCache == .f16 && valueCache == .f16 ? "" : ", cache k \(keyCache.rawValue) v \(valueCache.rawValue)")
    }
}
