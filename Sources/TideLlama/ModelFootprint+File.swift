import CLlama
import Foundation
import TideCore

extension ModelFootprint {
    /// The footprint of the model in the file at `path` with `sequences` sequences of
    /// `contextSize` tokens (`nil`: min(4096, the model's trained length)), its cache storing keys
    /// as `key` and values as `value`, read from its metadata and vocabulary, not its weights.
    public init(ofFile path: String, contextSize: Int?, sequences: Int, key: KVCacheType = .f16, value: KVCacheType = .f16)
        throws(LlamaError)
    {
        _ = try GGUFHeader(path: path)
        LlamaRuntime.ensureInitialised()
        let read = try LlamaModel.shapeAndTrainedLength(ofFile: path)
        let size = LlamaContextOptions(contextSize: contextSize).resolvedContextSize(trainedLength: read.trainedLength)
        let fitted = read.trainedLength > 0 ? min(size, read.trainedLength) : size
        let weights = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
        self.init(weightBytes: weights, cacheBytes: read.shape.kvCacheBytes(contextSize: fitted * max(1, sequences), key: key, value: value), contextSize: fitted)
    }

}
