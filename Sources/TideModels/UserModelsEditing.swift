import Foundation
import TideFiles

extension UserModels {
    /// Adds `preset` to `file` — replacing the entry of the same name only with `replacing` —
    /// and keeps every other entry as it is. The file is checked before and after, and written
    /// atomically: a registry Tide cannot read is never touched, and never made.
    public static func save(_ preset: PresetEntry, replacing: Bool, in file: URL = standardFile) throws(UserModelsError) {
        if let problem = problem(naming: preset.name) { throw UserModelsError(file: file.path, detail: problem) }
        let current = try UserModels(file: file)
        if current.entry(named: preset.name) != nil, !replacing {
            throw UserModelsError(file: file.path, detail: "there is already a model named '\(preset.name)'; "
                                      + "add --replace to replace it, or choose another name")
        }
        var models = try rawEntries(of: file).filter { ($0["name"] as? String)?.lowercased() != preset.name.lowercased() }
        let encoded: Any
        do {
            encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(preset))
        } catch {
            throw UserModelsError(file: file.path, detail: "cannot encode the entry: \(error)")
        }
        models.append(encoded as? [String: Any] ?? [:])
        try write(models, to: file)
        let written = try UserModels(file: file)
        _ = try written.presets(from: preset.name)
    }

    /// Removes the entry `name` from `file`; false when it has none.
    public static func remove(_ name: String, from file: URL = standardFile) throws(UserModelsError) -> Bool {
        guard try UserModels(file: file).entry(named: name) != nil else { return false }
        try write(try rawEntries(of: file).filter { ($0["name"] as? String)?.lowercased() != name.lowercased() }, to: file)
        return true
    }

    /// The entries of `file` as JSON objects, to write back unchanged.
    private static func rawEntries(of file: URL) throws(UserModelsError) -> [[String: Any]] {
        guard InputFile.kind(of: file.path) != .missing else { return [] }
        do {
            let data = Data(try InputFile.contents(of: file.path, what: "model registry", limit: fileSizeLimit))
            return (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["models"] as? [[String: Any]] ?? []
        } catch {
            throw UserModelsError(file: file.path, detail: "\(error)")
        }
    }

    private static func write(_ models: [[String: Any]], to file: URL) throws(UserModelsError) {
        do {
            let data = try JSONSerialization.data(withJSONObject: ["models": models],
                                                  options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            try OutputFile.write(data + Data("\n".utf8), to: file.path, what: "the model registry")
        } catch let error as OutputFileError {
            throw UserModelsError(file: file.path, detail: error.description)
        } catch {
            throw UserModelsError(file: file.path, detail: "\(error)")
        }
    }
}
