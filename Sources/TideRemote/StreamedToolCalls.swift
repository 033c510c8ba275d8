import Synchronization
import TideCore
import TideFormat
import TideOpenAI

/// The tool calls of a streamed reply, put together from their pieces
/// (`choices[0].delta.tool_calls`): a call's first piece gives its id and name, the rest add to
/// its arguments; `index` says which call a piece is of. Filled by the task that reads the
/// stream, read once it has ended.
final class StreamedToolCalls: Sendable {
    private struct Entry {
        var id: String?
        var name = ""
        var arguments = ""
    }

    private let entries = Mutex<[Int: Entry]>([:])

    /// Adds streamed pieces.
    func add(_ pieces: [WireToolCallDelta]) {
        entries.withLock { entries in
            for piece in pieces {
                // Taken out, so that the arguments grow in place rather than copied per piece.
                var entry = entries.removeValue(forKey: piece.index) ?? Entry()
                entry.id = entry.id ?? piece.id
                if entry.name.isEmpty, let name = piece.function?.name { entry.name = name }
                entry.arguments += piece.function?.arguments ?? ""
                entries[piece.index] = entry
            }
        }
    }

    /// The calls, in order. A call without a name, or whose arguments are not a JSON object, is
    /// a ``ToolFailure`` (it could be neither run nor sent back to the server).
    func calls() throws(ToolFailure) -> [ToolCall] {
        let entries = self.entries.withLock { $0 }
        var calls: [ToolCall] = []
        for (number, key) in entries.keys.sorted().enumerated() {
            let entry = entries[key]!
            guard !entry.name.isEmpty else { throw ToolFailure("the server's tool call number \(number + 1) names no function") }
            let arguments = entry.arguments.isEmpty ? "{}" : entry.arguments
            guard case .object? = try? JSONValue(parsing: arguments) else {
                throw ToolFailure("the arguments of the server's call of \(entry.name) are not a JSON object: "
                                      + String(arguments.prefix(120)))
            }
            calls.append(ToolCall(id: entry.id ?? ToolCall.freshID(), name: entry.name, arguments: arguments))
        }
        return calls
    }
}
