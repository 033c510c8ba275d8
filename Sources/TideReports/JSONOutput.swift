import Foundation

/// The JSON that `--json` prints, the same way for every command: sorted keys, slashes as they
/// are, one document per line.
public enum JSONOutput {
    /// `value` as one line of JSON.
    public static func line(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
