import Foundation
import TideCore
import TideLua
import TideScript

extension ChatController {
    /// The chat's settings now.
    var currentSettings: TurnSettings {
        TurnSettings(parameters: ParameterSetting.all(of: session.parameters), format: formatSetting,
                     plugins: plugins.map { ($0.plugin.name, $0.plugin.specification) },
                     systemPrompt: history.first { $0.role == .system }?.content)
    }

    /// The reply format as a directive; `nil` for free text, or for a format that came from no
    /// file (which cannot be written down).
    private var formatSetting: FormatSetting? {
        guard let format = session.parameters.format else { return nil }
        // By absolute path (a --json-schema given relative to the working directory too), so the
        // script finds the file wherever it is saved.
        let absolute = format.file.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        switch (format.kind, absolute) {
        case (.json, _): return .json
        case (.jsonSchema, let file?): return .jsonSchema(file: file)
        case (.grammar, let file?): return .grammar(file: file)
        case (_, nil): return nil
        }
    }
}
