import Foundation
import TideFormat

/// The schema fixtures in Fixtures/Schemas: `NN-name.json` with `NN-name.valid.json` and
/// `NN-name.invalid.json`.
enum FixtureSchemas {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/Schemas")

    /// The fixture names (`01-person` …), in order.
    static let names: [String] = {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return files.filter { $0.hasSuffix(".json") && !$0.hasSuffix(".valid.json") && !$0.hasSuffix(".invalid.json") }
            .map { String($0.dropLast(5)) }.sorted()
    }()

    /// The JSON in `name` + `suffix`.
    static func load(_ name: String, _ suffix: String = ".json") throws -> JSONValue {
        try JSONValue(parsing: String(contentsOf: folder.appendingPathComponent(name + suffix), encoding: .utf8))
    }
}
