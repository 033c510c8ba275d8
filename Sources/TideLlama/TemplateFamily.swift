import Foundation
import TideCore

/// A model family whose prompts Tide writes itself, byte for byte as the family's own Jinja chat
/// template renders them (as Hugging Face's transformers and llama-server's `--jinja` do), where
/// llama.cpp's built-in rendering of the family differs from it: Phi-3.5 skips an empty system
/// prompt, Phi-4-mini puts no line breaks after its role tags and lists tools in its system turn,
/// Llama 3.1 to 3.3 date every system prompt, Gemma 3 starts the first user turn with the system
/// prompt as written, and ChatML templates (SmolLM2, Qwen 2.5) supply a system prompt of their own
/// when the conversation has none; Qwen 3 writes back the reasoning of the turn being answered, and
/// DeepSeek R1 opens the reasoning block in the prompt. The tests hold each family to its template
/// (docs/models.md).
///
/// Prompts leave out the BOS token: llama.cpp's tokenizer adds it where the model wants one.
enum TemplateFamily: Hashable {
    /// ChatML (`<|im_start|>role\n…<|im_end|>\n`), with the system prompt the template writes when
    /// the conversation has none; a template that `thinks` (Qwen 3's) writes the reasoning of the
    /// assistant messages after the last question back in a `<think>` block.
    case chatML(defaultSystem: String?, thinks: Bool)
    /// Phi-3 and Phi-3.5 (`<|role|>\n…<|end|>\n`); Phi-3-mini's first template drops system messages.
    case phi3(keepsSystem: Bool)
    /// Phi-4-mini (`<|role|>…<|end|>`, tools in the system turn between `<|tool|>` and `<|/tool|>`).
    case phi4Mini
    /// Llama 3.1 to 3.3: headers, every system prompt dated as the template dates it when no date
    /// is given (`26 Jul 2024`), so that a prompt does not change with the day.
    case llama3Dated
    /// Gemma 2 and 3 (`<start_of_turn>user\n…<end_of_turn>\n`, the assistant's turns `model`).
    case gemma
    /// DeepSeek R1 and its distillations (`<｜User｜>…<｜Assistant｜>…<｜end▁of▁sentence｜>`): the
    /// system prompt first, earlier answers without their reasoning, and the prompt ending inside
    /// an opened `<think>` block.
    case deepSeekR1

    /// The family's name, as `tide models info` shows it.
    var name: String {
        switch self {
        case .chatML(_, let thinks): thinks ? "ChatML with reasoning (Qwen 3)" : "ChatML"
        case .phi3: "Phi-3"
        case .phi4Mini: "Phi-4-mini"
        case .llama3Dated: "Llama 3.1+"
        case .gemma: "Gemma"
        case .deepSeekR1: "DeepSeek R1"
        }
    }

    /// The family of the Jinja template `text` (a GGUF's `tokenizer.chat_template`), if Tide
    /// writes that family's prompts itself.
    init?(recognizing template: String) {
        // Line breaks are written either way in templates: in a string literal, or as `\n`.
        let text = template.replacingOccurrences(of: #"\n"#, with: "\n")
        if text.contains("<|im_start|>"), !text.contains("<|im_sep|>"), !text.contains("## Metadata") {
            self = .chatML(defaultSystem: Self.defaultSystem(in: text), thinks: text.contains("reasoning_content"))
        } else if text.contains("'<|' + message['role'] + '|>'"), text.contains("<|end|>"), text.contains("<|tool|>") {
            self = .phi4Mini
        } else if text.contains("<|assistant|>"), text.contains("<|end|>\n") || text.contains("<|end|>' + '\n'") {
            self = .phi3(keepsSystem: text.contains("<|system|>"))
        } else if text.contains("<|start_header_id|>"), text.contains("Cutting Knowledge Date: December 2023") {
            self = .llama3Dated
        } else if text.contains("<start_of_turn>"), text.contains("first_user_prefix") || text.contains("System role not supported") {
            self = .gemma
        } else if text.contains("<｜User｜>"), text.contains("<｜Assistant｜><think>\n") {
            self = .deepSeekR1
        } else {
            return nil
        }
    }

    /// The system prompt a ChatML template writes as a literal when the conversation has none
    /// (`'<|im_start|>system\nYou are Qwen, …<|im_end|>\n'`), in `text` whose line breaks are characters.
    private static func defaultSystem(in text: String) -> String? {
        let opening = "'<|im_start|>system\n"
        var rest = Substring(text)
        while let start = rest.range(of: opening) {
            let tail = rest[start.upperBound...]
            guard let end = tail.range(of: "<|im_end|>") else { return nil }
            let literal = tail[..<end.lowerBound]
            if !literal.contains("'"), !literal.contains("{"), !literal.isEmpty {
                return String(literal)
            }
            rest = tail[end.upperBound...]
        }
        return nil
    }

    /// The prompt for `messages`, ending with the opening of an assistant turn; `tool` messages
    /// take the role `toolRole`.
    func render(_ messages: [ChatMessage], toolRole: String) -> String {
        func role(_ message: ChatMessage) -> String { message.role == .tool ? toolRole : message.role.rawValue }
        switch self {
        case .chatML(let defaultSystem, let thinks):
            var prompt = ""
            if let defaultSystem, messages.first?.role != .system {
                prompt += "<|im_start|>system\n\(defaultSystem)<|im_end|>\n"
            }
            // Qwen 3 keeps the reasoning of the answers after the last question (not a tool's result).
            let lastQuestion = messages.lastIndex { message in
                message.role == .user && !(message.content.hasPrefix("<tool_response>") && message.content.hasSuffix("</tool_response>"))
            } ?? messages.count
            for (index, message) in messages.enumerated() {
                var text = message.content
                if thinks, message.role == .assistant, index > lastQuestion, let reasoning = message.reasoning, !reasoning.isEmpty {
                    text = "<think>\n" + reasoning.trimmingLineBreaks + "\n</think>\n\n" + String(text.drop { $0 == "\n" })
                }
                prompt += "<|im_start|>\(role(message))\n\(text)<|im_end|>\n"
            }
            return prompt + "<|im_start|>assistant\n"
        case .phi3(let keepsSystem):
            var prompt = ""
            for message in messages where message.role != .system || (keepsSystem && !message.content.isEmpty) {
                prompt += "<|\(role(message))|>\n\(message.content)<|end|>\n"
            }
            return prompt + "<|assistant|>\n"
        case .phi4Mini:
            var prompt = ""
            for message in messages {
                let tools = message.role == .system ? message.offeredTools.map { "<|tool|>\($0)<|/tool|>" } ?? "" : ""
                prompt += "<|\(role(message))|>\(message.content)\(tools)<|end|>"
            }
            return prompt + "<|assistant|>"
        case .llama3Dated:
            func turn(_ role: String, _ text: String) -> String { "<|start_header_id|>\(role)<|end_header_id|>\n\n\(text)<|eot_id|>" }
            let dates = "Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n"
            var rest = messages[...]
            var system = ""
            if let first = rest.first, first.role == .system {
                system = first.content
                rest = rest.dropFirst()
            }
            // The tools' environment line stays before the dates, where the template writes it.
            let environment = "Environment: ipython\n"
            let prefix = system.hasPrefix(environment) ? environment : ""
            var prompt = turn("system", prefix + dates + system.dropFirst(prefix.count).trimmingCharacters(in: .whitespacesAndNewlines))
            for message in rest {
                // The template trims each message but a tool's result.
                let text = message.role == .tool ? message.content : message.content.trimmingCharacters(in: .whitespacesAndNewlines)
                prompt += turn(role(message), text)
            }
            return prompt + "<|start_header_id|>assistant<|end_header_id|>\n\n"
        case .gemma:
            var rest = messages[...]
            var prefix = ""
            if let first = rest.first, first.role == .system {
                prefix = first.content + "\n\n"
                rest = rest.dropFirst()
            }
            var prompt = ""
            for (index, message) in rest.enumerated() {
                let name = message.role == .assistant ? "model" : role(message)
                prompt += "<start_of_turn>\(name)\n\(index == 0 ? prefix : "")"
                prompt += message.content.trimmingCharacters(in: .whitespacesAndNewlines) + "<end_of_turn>\n"
            }
            return prompt + "<start_of_turn>model\n"
        case .deepSeekR1:
            var prompt = messages.last { $0.role == .system }?.content ?? ""
            for message in messages {
                switch message.role {
                case .system: continue
                case .assistant:
                    let answer = message.content.split(separator: "</think>", omittingEmptySubsequences: false).last.map(String.init) ?? ""
                    prompt += "<｜Assistant｜>\(answer)<｜end▁of▁sentence｜>"
                case .user, .tool: prompt += "<｜User｜>\(message.content)"
                }
            }
            return prompt + "<｜Assistant｜><think>\n"
        }
    }

}
