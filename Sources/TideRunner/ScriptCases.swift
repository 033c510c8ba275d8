import Foundation
import TideFiles
import TideScript

/// One replay of a run: a script, with one row of its data when it is fed by data.
public struct ScriptCase: Sendable {
    /// The script file (``ScriptFiles/standardInput`` for `-`).
    public var file: String
    /// The row whose values it takes, when it is fed by data.
    public var row: DataRow?
    /// The script with its variables' values, or why it cannot be replayed.
    public var script: Result<ConversationScript, CaseFailure>

    /// Why a case cannot be replayed: a script that does not parse or cannot be read.
    public struct CaseFailure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }
}

/// The cases of a run: each script once, or once per row of its data file (`@data`, else the
/// run's `--data`), every row's script parsed before anything is generated.
public enum ScriptCases {
    /// The cases of `files`, in order, each script's rows in the data file's order, and the errors
    /// that must stop the run before it generates anything: a data file that cannot be read, a
    /// row whose script does not parse, and a reference to a variable with no value. Any other
    /// script that does not parse is a case that fails, as it always was; the rest run.
    public static func plan(files: [String], standardInput: String?, variables: [String: String] = [:],
                            data: String? = nil) -> (cases: [ScriptCase], errors: [String])
    {
        var cases: [ScriptCase] = []
        var errors: [String] = []
        var tables: [String: Result<DataTable, any Error>] = [:]
        for file in files {
            let bytes: [UInt8]
            do {
                bytes = file == ScriptFiles.standardInput ? Array((standardInput ?? "").utf8)
                    : try InputFile.contents(of: file, what: "script", limit: ConversationScript.fileSizeLimit)
            } catch {
                cases.append(ScriptCase(file: file, script: .failure(.init(description: "\(error)"))))
                continue
            }
            let named = ConversationScript.dataFile(in: String(decoding: bytes, as: UTF8.self))
            let dataPath = named.map(\.file).map { path in
                file == ScriptFiles.standardInput || path.hasPrefix("/") ? path
                    : URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent(path).path
            } ?? data
            func parse(_ row: DataRow?) -> Result<ConversationScript, ScriptParseError> {
                do {
                    return .success(try ConversationScript(bytes: bytes, variables: ScriptVariables(commandLine: variables, row: row)))
                } catch {
                    var located = error
                    located.file = file
                    return .failure(located)
                }
            }
            guard let dataPath else {
                let script = parse(nil)
                if case .failure(let error) = script, error.variable != nil { errors.append("\(error)") }
                cases.append(ScriptCase(file: file, script: script.mapError { .init(description: "\($0)") }))
                continue
            }
            let table: DataTable
            let loaded = tables[dataPath] ?? Result { try DataTable(contentsOf: dataPath) }
            tables[dataPath] = loaded
            switch loaded {
            case .success(let read): table = read
            case .failure(let error):
                errors.append(named.map { "\(file):\($0.line): @data \($0.file): \(error)" } ?? "--data: \(error)")
                continue
            }
            var failed: [ScriptParseError] = []
            for row in table.rows {
                let script = parse(row)
                if case .failure(let error) = script { failed.append(error) }
                cases.append(ScriptCase(file: file, row: row, script: script.mapError { .init(description: "\($0)") }))
            }
            if let first = failed.first {
                errors.append("\(first)" + (failed.count > 1 ? "\n    (and \(failed.count - 1) more of its \(table.rows.count) rows)" : ""))
            }
        }
        return (cases, errors)
    }
}
