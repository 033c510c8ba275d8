/// How a tool call and its result are shown to a person (`tide generate` on standard error, the
/// chat as a notice): `tool calculator {"expression": "2+2"} → 4 (0.3 ms)`.
public enum ToolReport {
    /// The longest result shown whole; a longer one is cut with a count of what was left out.
    public static let shownCharacters = 200

    /// One line for `result`.
    public static func line(_ result: ToolResult) -> String {
        var content = result.content.replacing("\n", with: " ")
        if content.count > shownCharacters {
            content = String(content.prefix(shownCharacters)) + "… (\(content.count - shownCharacters) more characters)"
        }
        let milliseconds = Double(result.duration.components.attoseconds) / 1e15 + Double(result.duration.components.seconds) * 1000
        let time = (milliseconds * 10).rounded() / 10
        return "tool \(result.call.name) \(result.call.arguments) \(result.failed ? "failed: " : "→ ")\(content) (\(time) ms)"
    }
}
