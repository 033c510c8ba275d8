/// Reads a reply's tool calls as the model writes them, piece by piece, whatever the format that
/// wraps them (Hermes' `<tool_call>` tags, Llama's bare objects, Mistral's and Phi-4-mini's lists):
/// each call is a JSON object that is not inside another object, with its function's `name` and
/// its `arguments` (or `parameters`) object. As the text grows it says when a call starts (its
/// name whole) and gives its arguments' text as it comes, so that a server can stream a call's
/// input while it is generated. Arguments written before the name, or as a string, are not
/// streamed (``Event/skipped(index:)``): the whole call, read once the reply ends, gives them.
public struct ToolCallStream: Sendable {
    /// What a piece of the calls' text made known.
    public enum Event: Sendable, Hashable {
        /// Call number `index` (from 0) calls `name`.
        case started(index: Int, name: String)
        /// More of call number `index`'s arguments object, as written.
        case arguments(index: Int, text: String)
        /// Call number `index`'s arguments are whole.
        case ended(index: Int)
        /// Call number `index`'s arguments cannot be streamed (written before its name, or as a
        /// string): they come with the whole call.
        case skipped(index: Int)
    }

    private enum Container { case object, array }
    /// The open objects and lists, outermost first.
    private var stack: [Container] = []
    private var inString = false
    private var escaped = false
    /// The string being read, when it is a key or a value the reader keeps.
    private var string = ""
    /// Whether the string being read is a key (else a value).
    private var stringIsKey = false
    /// The last key read at each object depth.
    private var keys: [Int: String] = [:]
    /// Whether the next value at the call's depth is the one after a key.
    private var expectingValue = false
    /// The depth of the open call's object; `nil` outside a call.
    private var callDepth: Int?
    private var calls = -1
    private var named = false
    /// The depth of the arguments object being streamed, while it is.
    private var argumentsDepth: Int?
    private var argumentsSkipped = false

    /// A reader before any text.
    public init() {}

    /// The events `piece`, the next text of the calls, makes known.
    public mutating func read(_ piece: String) -> [Event] {
        var events: [Event] = []
        var streamed = ""
        func flush() {
            if !streamed.isEmpty { events.append(.arguments(index: calls, text: streamed)) }
            streamed = ""
        }
        for character in piece {
            let streaming = argumentsDepth != nil
            if streaming { streamed.append(character) }
            if inString {
                if escaped {
                    escaped = false
                    if !streaming { string.append(character) }
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inString = false
                    if !streaming { finishString(into: &events) }
                } else if !streaming {
                    string.append(character)
                }
                continue
            }
            switch character {
            case "\"":
                inString = true
                string = ""
                stringIsKey = stack.last == .object && !expectingValue
            case ":" where stack.last == .object:
                expectingValue = true
            case ",":
                expectingValue = false
            case "{", "[":
                let opensObject = character == "{"
                if opensObject, callDepth == nil, !stack.contains(.object) {
                    calls += 1
                    callDepth = stack.count + 1
                    named = false
                    argumentsSkipped = false
                } else if opensObject, let callDepth, stack.count == callDepth, expectingValue, Self.isArguments(keys[callDepth]) {
                    if named {
                        argumentsDepth = stack.count + 1
                        streamed.append(character)
                    } else {
                        argumentsSkipped = true
                        events.append(.skipped(index: calls))
                    }
                }
                stack.append(opensObject ? .object : .array)
                expectingValue = false
            case "}", "]":
                if let depth = argumentsDepth, stack.count == depth {
                    argumentsDepth = nil
                    flush()
                    events.append(.ended(index: calls))
                }
                if let depth = callDepth, stack.count == depth { callDepth = nil }
                stack.removeLast(stack.isEmpty ? 0 : 1)
                expectingValue = false
            default:
                break
            }
        }
        flush()
        return events
    }

    private static func isArguments(_ key: String?) -> Bool { key == "arguments" || key == "parameters" }

    private mutating func finishString(into events: inout [Event]) {
        guard let callDepth, stack.count == callDepth else {
            if stringIsKey { keys[stack.count] = string }
            return
        }
        if stringIsKey {
            keys[stack.count] = string
        } else if expectingValue {
            if keys[callDepth] == "name", !named {
                named = true
                events.append(.started(index: calls, name: string))
            } else if Self.isArguments(keys[callDepth]), !argumentsSkipped {
                argumentsSkipped = true
                events.append(.skipped(index: calls))
            }
            expectingValue = false
        }
    }
}
