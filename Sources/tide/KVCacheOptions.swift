import ArgumentParser
import TideCore

/// `--cache-type-k` and `--cache-type-v`: how the KV cache stores keys and values, on every
/// command that loads a model and in a preset (`tide models create`).
struct KVCacheOptions: ParsableArguments {
    @Option(name: .customLong("cache-type-k"), help: ArgumentHelp(
        "How the KV cache stores keys: " + KVCacheType.names + " (default: the preset's, else f16; q8_0 halves the cache).",
        valueName: "type"))
    var key: String?

    @Option(name: .customLong("cache-type-v"), help: ArgumentHelp(
        "How the KV cache stores values, as --cache-type-k (a quantized type turns flash attention on; default: the preset's, else f16).",
        valueName: "type"))
    var value: String?

    func validate() throws {
        _ = try keyType
        _ = try valueType
    }

    /// `--cache-type-k`, checked; `nil` when it is not given.
    var keyType: KVCacheType? { get throws { try Self.type(key, option: "--cache-type-k") } }

    /// `--cache-type-v`, checked; `nil` when it is not given.
    var valueType: KVCacheType? { get throws { try Self.type(value, option: "--cache-type-v") } }

    /// Whether either is given.
    var isGiven: Bool { key != nil || value != nil }

    private static func type(_ name: String?, option: String) throws -> KVCacheType? {
        guard let name else { return nil }
        guard let type = KVCacheType(naming: name) else {
            throw ValidationError("unknown \(option) '\(name)'; choose " + KVCacheType.names)
        }
        return type
    }
}
