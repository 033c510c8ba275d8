import Foundation
import TideScript

/// Finding scripts on disk, naming their golden transcripts, and writing transcripts safely.
public enum ScriptFiles {
    /// The extension of conversation scripts.
    public static let fileExtension = "tide"
    /// What golden transcripts end with (they are scripts too, but a folder run skips them).
    public static let goldenSuffix = ".golden.tide"

    /// The scripts that `paths` name: files as given, folders searched recursively for `.tide`
    /// files (golden transcripts excepted), sorted. A path that does not exist is an error.
    public static func scripts(in paths: [String]) throws -> [String] {
        var found: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw ScriptRunError("\(path): no such file or folder")
            }
            guard isDirectory.boolValue else {
                found.append(path)
                continue
            }
            let root = URL(fileURLWithPath: path)
            let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?
                .compactMap { $0 as? URL }
                .filter { $0.pathExtension == fileExtension && !$0.lastPathComponent.hasSuffix(goldenSuffix) } ?? []
            let base = path.hasSuffix("/") ? path : path + "/"
            found += files.map { base + $0.path.dropFirst(root.path.count + 1) }.sorted()
        }
        return found
    }

    /// The largest `@ctx-size` among the scripts that parse, if any sets one (batched scripts
    /// share one context, whose sequences must be as large as the largest asks).
    public static func largestContextSize(in files: [String]) -> Int? {
        files.compactMap { file in
            (try? ConversationScript(contentsOf: URL(fileURLWithPath: file)))?.steps.compactMap { step -> Int? in
                if case .directive(.contextSize(let size), _) = step { size } else { nil }
            }.max()
        }.max()
    }

    /// Where the golden transcript of `script` lives: next to it as `NAME.golden.tide`, or as
    /// `folder/NAME.tide`.
    public static func goldenPath(for script: String, in folder: String?) -> String {
        let url = URL(fileURLWithPath: script)
        let name = url.deletingPathExtension().lastPathComponent
        if let folder { return URL(fileURLWithPath: folder).appendingPathComponent(name + ".\(fileExtension)").path }
        return url.deletingLastPathComponent().appendingPathComponent(name + goldenSuffix).path
    }

    /// Writes `script` to `path` through a temporary file and a rename, so a reader never sees
    /// half a transcript. Creates the folder if needed.
    public static func write(_ script: ConversationScript, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp")
        try Data(script.printed().utf8).write(to: temporary)
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw ScriptRunError("\(path): cannot write the transcript: \(reason)")
        }
    }
}
