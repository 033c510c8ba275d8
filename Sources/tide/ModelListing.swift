import TideChat
import TideModels

/// One model as `tide models list` shows it: a row of the table, or a JSON object.
struct ModelListing: Encodable {
    var name: String
    /// `local`, `remote` or `preset`.
    var kind: String
    /// `chat` or `embedding`, for a built-in model.
    var purpose: String?
    var size_bytes: Int64?
    var installed: Bool?
    var summary: String
    /// A preset's model.
    var from: String?
    /// A remote model's server.
    var url: String?

    init(_ entry: ModelEntry, store: ModelStore) {
        name = entry.id
        kind = "local"
        purpose = entry.purpose.rawValue
        size_bytes = entry.sizeBytes
        installed = store.isInstalled(entry)
        summary = entry.summary
    }

    init(_ entry: UserModelEntry) {
        name = entry.name
        switch entry {
        case .remote(let remote):
            kind = "remote"
            url = remote.url.absoluteString
            summary = "\(remote.model) on \(remote.url.absoluteString)"
        case .preset(let preset):
            kind = "preset"
            from = preset.from
            let settings = ModelDefaultsText(preset.defaults).summary
            summary = "preset of \(preset.from)" + (settings.isEmpty ? "" : ": " + settings)
        }
    }

    /// The table's cells: name, kind, size, status, description.
    var row: [String] {
        [name, kind, size_bytes.map(Terminal.bytes) ?? "-", installed.map { $0 ? "installed" : "not pulled" } ?? "-", summary]
    }
}
