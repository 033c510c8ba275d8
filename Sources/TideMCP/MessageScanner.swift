import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TideCore

/// Splits what an MCP server writes into messages — one JSON text a line — as it arrives, and
/// bounds what Tide keeps of them. A message that nests deeper than ``nestingLimit`` is refused
/// as soon as it does, before the rest of it is read. A string longer than ``keptLimit`` is kept
/// only that long (at a character's end), the rest read and dropped: no result is ever shown
/// longer (`--max-tool-result` is at most that), so a result of hundreds of megabytes costs
/// Tide no more than one of 16 MiB. Where the string was part of a tool result's content (the
/// `text`, `data` or `blob` of `result.content[N]`, or of its `resource`), the message says so,
/// with the string's whole length (``Message/cuts``). A line is not checked to be JSON here.
struct MessageScanner {
    /// The deepest a message may nest arrays and objects: as deep as Foundation's JSON decoder,
    /// which the SDK reads messages with, reads.
    static let nestingLimit = 512
    /// The most bytes of a string kept: the largest `--max-tool-result`.
    static let keptLimit = GenerationParameters.maximumToolResult
    /// The most bytes of a message kept.
    static let messageLimit = 256 << 20

    /// A message, its strings cut to ``keptLimit``.
    struct Message {
        /// The line, without its line break.
        var data: Data
        /// Its `id`'s text (a string's content, a number's digits), when it has one.
        var id: String?
        /// Its tool result's content that was cut.
        var cuts: [ContentCut]
    }

    /// A string of `result.content[part]` that was cut: `bytes` long (in UTF-8, once its escapes
    /// are read), of which the first `kept` were kept.
    struct ContentCut: Sendable, Hashable {
        var part: Int
        var bytes: Int
        var kept: Int
    }

    /// Why a message cannot be read.
    enum Failure: Error, Equatable {
        case tooDeep
        case tooLong
    }

    private enum Frame {
        case object(key: [UInt8], expectingKey: Bool)
        case array(index: Int)
    }

    /// The string being read.
    private struct OpenString {
        var isKey: Bool
        /// The `result.content` part it belongs to, if it is one's text or data.
        var contentPart: Int?
        var isID: Bool
        /// Its first bytes, when it is a key or the id.
        var start: [UInt8] = []
        /// 0 outside an escape, 1 after its backslash, 2 to 5 in the hex digits of a `\u`.
        var escape = 0
        var code: UInt32 = 0
        /// Bytes read of it as written, and in UTF-8.
        var raw = 0
        var decoded = 0
        /// Whether the rest is dropped, and how much was kept (in UTF-8) when it began to be.
        var cutAt: Int?
        /// Whether the last escape kept was the first half of a surrogate pair, which the second must follow.
        var afterHighSurrogate = false
    }

    private var kept = Data()
    private var frames: [Frame] = []
    private var string: OpenString?
    private var id: String?
    /// The digits of a numeric id being read.
    private var idDigits: [UInt8]?
    private var cuts: [ContentCut] = []

    /// Reads `chunk`, and gives the messages it completes (blank lines are none).
    mutating func read(_ chunk: UnsafeRawBufferPointer) throws(Failure) -> [Message] {
        var messages: [Message] = []
        let bytes = chunk.bindMemory(to: UInt8.self)
        var position = 0
        while position < bytes.count {
            if string != nil {
                position = readString(bytes, from: position)
                if position < bytes.count && bytes[position] == UInt8(ascii: "\n") {
                    if let message = endLine() { messages.append(message) }
                    position += 1
                }
            } else {
                let byte = bytes[position]
                position += 1
                if byte == UInt8(ascii: "\n") {
                    if let message = endLine() { messages.append(message) }
                    continue
                }
                kept.append(byte)
                try structure(byte)
            }
            if kept.count > Self.messageLimit { throw .tooLong }
        }
        return messages
    }

    /// Reads a byte outside strings: brackets, separators, the start of a string, a number.
    private mutating func structure(_ byte: UInt8) throws(Failure) {
        if idDigits != nil {
            if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") {
                idDigits?.append(byte)
                return
            }
            id = idDigits.map { String(decoding: $0, as: UTF8.self) }
            idDigits = nil
        }
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            if frames.count == Self.nestingLimit { throw .tooDeep }
            frames.append(byte == UInt8(ascii: "{") ? .object(key: [], expectingKey: true) : .array(index: 0))
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
            _ = frames.popLast()
        case UInt8(ascii: ","):
            switch frames.last {
            case .object(let key, _): frames[frames.count - 1] = .object(key: key, expectingKey: true)
            case .array(let index): frames[frames.count - 1] = .array(index: index + 1)
            case nil: break
            }
        case UInt8(ascii: ":"):
            if case .object(let key, _) = frames.last { frames[frames.count - 1] = .object(key: key, expectingKey: false) }
        case UInt8(ascii: "\""):
            if case .object(_, true) = frames.last {
                string = OpenString(isKey: true, contentPart: nil, isID: false)
            } else {
                string = OpenString(isKey: false, contentPart: contentPart(), isID: isAtID)
            }
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            if isAtID { idDigits = [byte] }
        default:
            break
        }
    }

    /// Whether a value here is the message's `id`.
    private var isAtID: Bool {
        guard frames.count == 1, case .object(let key, false) = frames[0] else { return false }
        return key == Array("id".utf8)
    }

    /// The part of `result.content` whose `text`, `data` or `blob` (or its `resource`'s `text`
    /// or `blob`) a string here is.
    private func contentPart() -> Int? {
        guard frames.count == 4 || frames.count == 5, case .object(let result, _) = frames[0], result == Array("result".utf8),
              case .object(let content, _) = frames[1], content == Array("content".utf8), case .array(let part) = frames[2],
              case .object(let field, _) = frames[3] else { return nil }
        let payloads = ["text", "data", "blob"].map { Array($0.utf8) }
        if frames.count == 4 { return payloads.contains(field) ? part : nil }
        guard field == Array("resource".utf8), case .object(let inner, _) = frames[4], payloads.contains(inner) else { return nil }
        return part
    }

    /// Reads the open string from `start`: whole runs without an escape or a quote at once, the
    /// rest byte by byte. Returns where it stopped: the end of the chunk, just after the closing
    /// quote, or at a line break (which ends the line, in a string or not).
    private mutating func readString(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var position = start
        while position < bytes.count, var open = string {
            if open.escape == 0 {
                let run = Self.plainRun(bytes, from: position)
                if run > 0 {
                    keep(bytes, position, run, into: &open)
                    position += run
                    string = open
                    continue
                }
            }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\n") { return position }
            position += 1
            open.raw += 1
            switch open.escape {
            case 0 where byte == UInt8(ascii: "\""):
                kept.append(byte)
                close(open)
                return position
            case 0:
                // A backslash: the escape is kept whole, or not at all; the second half of a
                // surrogate pair with its first.
                if open.cutAt == nil && !open.isKey && !open.afterHighSurrogate && open.raw + 5 > Self.keptLimit {
                    open.cutAt = open.decoded
                }
                open.escape = 1
            case 1:
                if byte == UInt8(ascii: "u") {
                    open.escape = 2
                    open.code = 0
                } else {
                    open.escape = 0
                    open.decoded += 1
                    open.afterHighSurrogate = false
                }
            default:
                open.code = open.code << 4 | UInt32(Self.hexValue(byte))
                open.escape += 1
                if open.escape == 6 {
                    open.escape = 0
                    let code = open.code
                    open.decoded += code < 0x80 ? 1 : code < 0x800 || (0xD800...0xDFFF).contains(code) ? 2 : 3
                    open.afterHighSurrogate = (0xD800...0xDBFF).contains(code)
                }
            }
            if open.cutAt == nil {
                kept.append(byte)
                if open.isKey || open.isID, open.start.count < 64 { open.start.append(byte) }
            }
            string = open
        }
        return position
    }

    /// Keeps what fits of `count` bytes at `position`, which hold no quote, backslash or line break.
    private mutating func keep(_ bytes: UnsafeBufferPointer<UInt8>, _ position: Int, _ count: Int, into open: inout OpenString) {
        let run = UnsafeBufferPointer(rebasing: bytes[position..<(position + count)])
        if open.cutAt == nil {
            var room = open.isKey ? count : min(count, max(0, Self.keptLimit - open.raw))
            // Not in the middle of a character: a continuation byte (10xxxxxx) starts none.
            while room < count && room > 0 && run[room] & 0xC0 == 0x80 { room -= 1 }
            kept.append(UnsafeBufferPointer(rebasing: run[..<room]))
            if open.isKey || open.isID, open.start.count < 64 { open.start.append(contentsOf: run[..<min(room, 64 - open.start.count)]) }
            if room < count {
                // A character the previous chunk began and this one would end is not kept either.
                let unfinished = room == 0 && run[0] & 0xC0 == 0x80 ? dropUnfinishedCharacter() : 0
                open.cutAt = open.decoded + room - unfinished
            }
        }
        open.raw += count
        open.decoded += count
        open.afterHighSurrogate = false
    }

    /// Removes the bytes of a character whose end was not kept from the end of the message, and
    /// says how many there were.
    private mutating func dropUnfinishedCharacter() -> Int {
        var count = 0
        while let last = kept.last, last & 0xC0 == 0x80 {
            kept.removeLast()
            count += 1
        }
        if let last = kept.last, last & 0xC0 == 0xC0 {
            kept.removeLast()
            count += 1
        }
        return count
    }

    /// Ends the open string, whose closing quote is kept.
    private mutating func close(_ open: OpenString) {
        string = nil
        if open.isKey, case .object = frames.last {
            frames[frames.count - 1] = .object(key: open.start, expectingKey: false)
        }
        if open.isID { id = String(decoding: open.start, as: UTF8.self) }
        if let cutAt = open.cutAt, let part = open.contentPart { cuts.append(ContentCut(part: part, bytes: open.decoded, kept: cutAt)) }
    }

    /// The message the line ends, unless it is blank; the scanner is ready for the next line.
    private mutating func endLine() -> Message? {
        if idDigits != nil { id = idDigits.map { String(decoding: $0, as: UTF8.self) } }
        var data = kept
        if data.last == UInt8(ascii: "\r") { data.removeLast() }
        let message = data.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) ? nil : Message(data: data, id: id, cuts: cuts)
        self = MessageScanner()
        return message
    }

    /// How many bytes from `position` hold no quote, backslash or line break.
    private static func plainRun(_ bytes: UnsafeBufferPointer<UInt8>, from position: Int) -> Int {
        let base = bytes.baseAddress! + position
        var end = bytes.count - position
        for special in [UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "\n")] {
            if let found = memchr(base, Int32(special), end) { end = base.distance(to: found.assumingMemoryBound(to: UInt8.self)) }
        }
        return end
    }

    private static func hexValue(_ byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: 0
        }
    }
}
