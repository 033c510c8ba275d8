import Foundation
import Testing

/// Every suite that launches `tide`. They run one test at a time, for the same reason as the
/// in-process model tests: each launch decodes with every core.
@Suite(.serialized) enum CommandLineTests {}

extension CommandLineTests {
    /// A new empty folder for the files one test writes.
    static func scratchFolder(_ label: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tide-cli-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}
