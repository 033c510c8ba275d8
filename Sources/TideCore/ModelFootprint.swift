/// The memory a model takes once loaded for a number of sequences, estimated from its file before
/// its weights are read: the file's size for the weights, and the KV cache its shape needs for the
/// context asked for (keys and values of every block, as the cache stores them:
/// `ModelFootprint(ofFile:contextSize:sequences:key:value:)` in TideLlama reads them). llama.cpp's
/// compute buffers come on top (tens of MiB for small models); a server's memory budget (`tide serve --memory-budget`)
/// is checked against ``totalBytes``.
public struct ModelFootprint: Sendable, Hashable {
    /// Bytes of the weights: the file's size.
    public var weightBytes: Int64
    /// Bytes of the KV cache of every sequence.
    public var cacheBytes: Int64
    /// Tokens each sequence holds: the context asked for, else min(4096, the trained length).
    public var contextSize: Int

    /// Weights and cache together.
    public var totalBytes: Int64 { weightBytes + cacheBytes }

    /// A footprint of known parts.
    public init(weightBytes: Int64, cacheBytes: Int64, contextSize: Int) {
        self.weightBytes = weightBytes
        self.cacheBytes = cacheBytes
        self.contextSize = contextSize
    }
}
