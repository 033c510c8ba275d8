/// One event of a `text/event-stream` (the HTML standard's server-sent events).
public struct ServerSentEvent: Sendable, Hashable {
    /// The `event:` field; `message` when the server names none.
    public var name: String
    /// The `data:` lines, joined by newlines.
    public var data: String

    /// An event.
    public init(name: String, data: String) {
        self.name = name
        self.data = data
    }
}

extension ServerSentEvent {
    /// The data of the event that ends an OpenAI stream.
    public static let doneMarker = "[DONE]"

    /// The bytes of a `data:` event carrying `data` (which holds no line break: JSON encoded
    /// compactly), as a streaming server sends it.
    public static func encoded(data: some Collection<UInt8>) -> [UInt8] {
        var bytes = Array("data: ".utf8)
        bytes.reserveCapacity(data.count + 8)
        bytes += data
        bytes += Array("\n\n".utf8)
        return bytes
    }

    /// The bytes of an event named `name` carrying `data` (which holds no line break), as
    /// Anthropic's streams send each: `event:` then `data:`.
    public static func encoded(name: String, data: some Collection<UInt8>) -> [UInt8] {
        Array("event: \(name)\n".utf8) + encoded(data: data)
    }

    /// The event that ends an OpenAI stream, as bytes.
    public static let done = encoded(data: Array(doneMarker.utf8))
}

/// An event larger than ``ServerSentEventParser/eventLimit``: a server that never ends its line
/// would otherwise grow the reader without bound (and, never silent, never time out).
public struct ServerSentEventTooLarge: Error, Sendable, Hashable, CustomStringConvertible {
    /// The error.
    public init() {}

    public var description: String {
        "an event is larger than \(ServerSentEventParser.eventLimit >> 20) MiB without ending"
    }
}

/// Reads server-sent events from bytes as they arrive, however the stream is cut into chunks:
/// lines end with LF, CRLF or CR; an empty line ends an event; `:` lines are comments.
public struct ServerSentEventParser: Sendable {
    /// The most bytes one event may hold.
    public static let eventLimit = 16 << 20
    private var eventBytes = 0
    private var line: [UInt8] = []
    private var lastWasCR = false
    private var name = ""
    private var data: [String] = []
    private var hasData = false

    /// A parser at the start of a stream.
    public init() {}

    /// Reads `bytes` and returns the events they complete.
    public mutating func feed<Bytes: Sequence>(_ bytes: Bytes) throws(ServerSentEventTooLarge) -> [ServerSentEvent]
        where Bytes.Element == UInt8
    {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            if lastWasCR {
                lastWasCR = false
                if byte == UInt8(ascii: "\n") { continue }
            }
            switch byte {
            case UInt8(ascii: "\n"): endLine(into: &events)
            case UInt8(ascii: "\r"):
                lastWasCR = true
                endLine(into: &events)
            default:
                line.append(byte)
                eventBytes += 1
                guard eventBytes <= Self.eventLimit else { throw ServerSentEventTooLarge() }
            }
        }
        return events
    }

    private mutating func endLine(into events: inout [ServerSentEvent]) {
        defer { line.removeAll(keepingCapacity: true) }
        guard !line.isEmpty else {
            if hasData { events.append(ServerSentEvent(name: name.isEmpty ? "message" : name, data: data.joined(separator: "\n"))) }
            eventBytes = 0
            name = ""
            data = []
            hasData = false
            return
        }
        let text = String(decoding: line, as: UTF8.self)
        if text.hasPrefix(":") { return }
        let field: Substring
        var value: Substring
        if let colon = text.firstIndex(of: ":") {
            field = text[..<colon]
            value = text[text.index(after: colon)...]
            if value.hasPrefix(" ") { value = value.dropFirst() }
        } else {
            field = text[...]
            value = ""
        }
        switch field {
        case "data":
            data.append(String(value))
            hasData = true
        case "event": name = String(value)
        default: break  // id and retry do not matter to a single streamed reply
        }
    }
}
