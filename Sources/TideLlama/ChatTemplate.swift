import CLlama
import Foundation
import TideCore

/// Which chat template renders messages into a prompt.
///
/// By default the GGUF's own template is used (`tokenizer.chat_template`). llama.cpp recognises
/// the common templates from their text; a name (`chatml`, `phi3`, `gemma`, `llama3`, …) picks
/// one explicitly, for models whose file has no template or an unusual one. `raw` is for base
/// (completion) models: the messages' texts, separated by blank lines, and nothing else.
public enum ChatTemplate: Sendable, Hashable, CustomStringConvertible {
    /// The template stored in the model file (chatml when the file has none).
    case model
    /// One of llama.cpp's built-in templates, by name.
    case named(String)
    /// Plain text for base models: the model continues the last message.
    case raw

    /// Creates a template from a user's spelling: `model`/`auto`, `raw`, or a built-in name.
    public init(parsing text: String) throws(LlamaError) {
        switch text {
        case "model", "auto": self = .model
        case "raw": self = .raw
        case _ where Self.builtinNames.contains(text): self = .named(text)
        default: throw .unsupportedTemplate(text)
        }
    }

    public var description: String {
        switch self {
        case .model: "model"
        case .named(let name): name
        case .raw: "raw"
        }
    }

    /// Every name ``init(parsing:)`` accepts.
    public static var acceptedNames: [String] { ["model", "raw"] + builtinNames }

    /// The names of llama.cpp's built-in templates.
    public static let builtinNames: [String] = {
        let count = Int(llama_chat_builtin_templates(nil, 0))
        var names = [UnsafePointer<CChar>?](repeating: nil, count: count)
        _ = llama_chat_builtin_templates(&names, count)
        return names.compactMap { $0.map { String(cString: $0) } }.sorted()
    }()

    /// Refuses messages holding a NUL character: llama.cpp takes C strings, so a NUL would
    /// silently end the message there, and a prompt Tide writes itself refuses them alike.
    static func refuseNULs(in messages: [ChatMessage]) throws(LlamaError) {
        if let message = messages.first(where: { $0.content.utf8.contains(0) }) { throw .nulCharacter(role: message.role) }
    }

    /// Renders `messages` with `template` (a template's text or a built-in name), ending with
    /// the opening of an assistant turn; `tool` messages take the role `toolRole`.
    static func render(_ messages: [ChatMessage], with template: String, toolRole: String = ChatRole.tool.rawValue)
        throws(LlamaError) -> String
    {
        try refuseNULs(in: messages)
        var owned: [UnsafeMutablePointer<CChar>] = []
        defer { owned.forEach { free($0) } }
        let chat = messages.map { message in
            let role = strdup(message.role == .tool ? toolRole : message.role.rawValue)!
            let content = strdup(message.content)!
            owned += [role, content]
            return llama_chat_message(role: role, content: content)
        }
        var capacity = max(1024, 2 * messages.reduce(0) { $0 + $1.content.utf8.count })
        while true {
            var buffer = [CChar](repeating: 0, count: capacity)
            let length = Int(llama_chat_apply_template(template, chat, chat.count, true, &buffer, Int32(capacity)))
            guard length >= 0 else { throw .unsupportedTemplate(template) }
            if length <= capacity {
                return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
            capacity = length
        }
    }
}
