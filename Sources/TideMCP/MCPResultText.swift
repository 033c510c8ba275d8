import MCP

/// A tool result's content as the text the model reads: text as it is, an embedded text
/// resource's text, and a line naming what the model cannot read (an image, audio, a binary
/// resource, a link), parts separated by line breaks.
enum MCPResultText {
    static func text(of content: [Tool.Content]) -> String {
        content.map { part in
            switch part {
            case .text(let text, _, _): text
            case .image(let data, let mimeType, _, _): "[image, \(mimeType), \(data.utf8.count * 3 / 4) bytes, not shown]"
            case .audio(let data, let mimeType, _, _): "[audio, \(mimeType), \(data.utf8.count * 3 / 4) bytes, not shown]"
            case .resource(let resource, _, _):
                resource.text ?? "[resource \(resource.uri)\(resource.mimeType.map { ", \($0)" } ?? ""), not shown]"
            case .resourceLink(let uri, let name, _, let description, _, _):
                "[resource link \(name): \(uri)\(description.map { " — \($0)" } ?? "")]"
            }
        }.joined(separator: "\n")
    }
}
