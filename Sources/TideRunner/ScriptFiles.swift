import Foundation
import TideFiles
import TideScript

/// Finding scripts on disk, naming their golden transcripts, and writing transcripts safely.
public enum ScriptFiles {
    /// The extension of conversation scripts.
    public static let fileExtension = "tide"
    /// What golden transcripts end with (they are scripts too, but a folder run skips them).
    public static let goldenSuffix = ".golden.tide"
    /// What a script read from standard input (given as `-`) is called in results and messages.
    public static let standardInput = "<stdin>"

    /// Parses the script at `file` (errors name it), or `text` for ``standardInput``.
    public static func parse(_ file: String, standardInput text: String?) throws -> ConversationScript {
        guard file == standardInput else { return try ConversationScript(contentsOf: URL(fileURLWithPath: file)) }
        return try ConversationScript(parsing: text ?? "")
    }

    /// The scripts that `paths` name: files as given, folders searched recursively for `.tide`
    /// files (golden transcripts excepted), sorted, and `-` as ``standardInput``. A path that
    /// does not exist is an error.
    public static func scripts(in paths: [String]) throws -> [String] {
        var found: [String] = []
        for path in paths {
            if path == "-" {
                found.append(standardInput)
                continue
            }
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

    /// The largest `@ctx-size` among the cases that parse, if any sets one (batched scripts
    /// share one context, whose sequences must be as large as the largest asks).
    public static func largestContextSize(in cases: [ScriptCase]) -> Int? {
        cases.compactMap { scriptCase in
            (try? scriptCase.script.get())?.steps.compactMap { step -> Int? in
                if case .directive(.contextSize(let size), _) = step { size } else { nil }
            }.max()
        }.max()
    }

    /// Where the golden transcript of `script` lives: next to it as `NAME.golden.tide`, or as
    /// `folder/NAME.tide`. A data row adds its name (`NAME.ROW.golden.tide`); a target of a run
    /// over several adds its label beside the script (`NAME.ROW.TARGET.golden.tide`) and is a
    /// folder of its own in `folder` (`folder/TARGET/NAME.ROW.tide`).
    public static func goldenPath(for script: String, in folder: String?, row: String? = nil, target: String? = nil) -> String {
        let url = URL(fileURLWithPath: script)
        let name = baseName(of: script, row: row)
        if let folder {
            let base = URL(fileURLWithPath: folder)
            return (target.map { base.appendingPathComponent($0) } ?? base).appendingPathComponent(name + ".\(fileExtension)").path
        }
        return url.deletingLastPathComponent().appendingPathComponent(name + (target.map { ".\($0)" } ?? "") + goldenSuffix).path
    }

    /// Where a transcript of `script` goes in `folder` (`--out`): its file name, `NAME.ROW.tide` for a
    /// data row, in a folder named after the target in a run over several.
    public static func transcriptPath(for script: String, in folder: String, row: String? = nil, target: String? = nil) -> String {
        let base = URL(fileURLWithPath: folder)
        let name = row == nil ? URL(fileURLWithPath: script).lastPathComponent : baseName(of: script, row: row) + ".\(fileExtension)"
        return (target.map { base.appendingPathComponent($0) } ?? base).appendingPathComponent(name).path
    }

    /// Where the trace of a case's hook calls goes beside its transcript at `transcript`
    /// (`tide run --out DIR --trace-hooks`): `NAME.trace.jsonl` for `NAME.tide`.
    public static func tracePath(beside transcript: String) -> String {
        let url = URL(fileURLWithPath: transcript)
        let name = url.pathExtension == fileExtension ? url.deletingPathExtension().lastPathComponent : url.lastPathComponent
        return url.deletingLastPathComponent().appendingPathComponent(name + ".trace.jsonl").path
    }

    /// The script's file name without its extension, and the row's name after a dot, its
    /// characters other than letters, digits, `.`, `_` and `-` written `_`.
    static func baseName(of script: String, row: String?) -> String {
        let name = URL(fileURLWithPath: script).deletingPathExtension().lastPathComponent
        guard let row else { return name }
        let safe = String(row.unicodeScalars.map {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0)
                ? Character($0) : "_"
        })
        return name + "." + safe
    }

    /// Writes `script` to `path` through a temporary file and a rename, so a reader never sees
    /// half a transcript, and a failed write leaves nothing behind. Creates the folder if needed.
    /// With `origin` (the script's own file), the files it names are named from the new place
    /// (``relocated(_:from:to:)``).
    public static func write(_ script: ConversationScript, to path: String, origin: String? = nil) throws {
        let url = URL(fileURLWithPath: path)
        let script = origin.map { relocated(script, from: $0, to: url.deletingLastPathComponent()) } ?? script
        try write(script.printed(), to: path, what: "the transcript")
    }

    /// Writes `text` to `path` atomically (``OutputFile``); errors name `what` was being written.
    public static func write(_ text: String, to path: String, what: String) throws {
        do {
            try OutputFile.write(Data(text.utf8), to: path, what: what)
        } catch {
            throw ScriptRunError(error.description)
        }
    }

    /// Creates `folder` if needed and checks that files can be made in it, so that a command
    /// that writes transcripts fails before it generates anything, not after.
    public static func prepareFolder(_ folder: String) throws {
        do {
            try OutputFile.prepareFolder(folder)
        } catch {
            throw ScriptRunError(error.description)
        }
    }

    /// The scripts among `files` that writing transcripts into `folder` would replace (a script
    /// whose transcript, named like it, lands on the script itself).
    public static func scriptsReplaced(in files: [String], byTranscriptsIn folder: String) -> [String] {
        let target = URL(fileURLWithPath: folder).resolvingSymlinksInPath().standardizedFileURL.path
        return files.filter {
            URL(fileURLWithPath: $0).resolvingSymlinksInPath().deletingLastPathComponent().standardizedFileURL.path == target
        }
    }
}
