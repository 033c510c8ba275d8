import MCP

/// A tool result's content as the text the model reads: text as it is, an embedded text
/// resource's text, and a line naming what the model cannot read (an image, audio, a binary
/// resource, a link), parts separated by line breaks. A part cut as it arrived (``cuts``) says
/// so, with its whole length, as a result cut to `--max-tool-result` does.
enum MCPResultText {
    static func text(of content: [Tool.Content], cuts: [MessageScanner.ContentCut] = []) -> String {
        content.enumerated().map { index, part in
            let cut = cuts.first { $0.part == index }
            // Base64 holds 3 bytes in 4 characters.
            func bytes(_ data: String) -> Int { (cut?.bytes ?? data.utf8.count) * 3 / 4 }
            func cutNote(_ text: String) -> String {
                cut.map { text + "\n[the result was cut: \($0.bytes) bytes, of which the first \($0.kept) are shown]" } ?? text
            }
            return switch part {
            case .text(let text, _, _): cutNote(text)
            case .image(let data, let mimeType, _, _): "[image, \(mimeType), \(bytes(data)) bytes, not shown]"
            case .audio(let data, let mimeType, _, _): "[audio, \(mimeType), \(bytes(data)) bytes, not shown]"
            case .resource(let resource, _, _):
                resource.text.map(cutNote) ?? "[resource \(resource.uri)\(resource.mimeType.map { ", \($0)" } ?? ""), not shown]"
            case .resourceLink(let uri, let name, _, let description, _, _):
                "[resource link \(name): \(uri)\(description.map { " — \($0)" } ?? "")]"
            }
        }.joined(separator: "\n")
    }
}
