import ArgumentParser
import Foundation
import TideFiles

/// Standard input read in bounded pieces: a prompt or a line larger than ``limit`` is an error
/// that says so, instead of a process that grows without bound (`tide generate - < /dev/zero`).
struct StandardInput {
    /// The most one prompt, line or block may hold.
    static let limit = 4 << 20

    private var buffer: [UInt8] = []
    private var ended = false

    /// Input longer than ``limit``.
    struct TooLong: Error, CustomStringConvertible {
        let what: String
        var description: String {
            "\(what) on standard input is longer than \(ByteCount(StandardInput.limit)), the most Tide reads for one message; "
                + "shorten it, or split it into several messages"
        }
    }

    /// Standard input that cannot be read.
    struct ReadFailure: Error, CustomStringConvertible {
        let reason: String
        var description: String { "cannot read standard input: \(reason)" }
    }

    /// Everything until the end of input (`what` it is, for the error when it is too long).
    static func readAll(what: String = "the prompt") throws -> String {
        var input = StandardInput()
        while try input.fill(what: what) {}
        return String(decoding: input.buffer, as: UTF8.self)
    }

    /// The next line without its line break, or `nil` at the end of input.
    mutating func readLine() throws -> String? {
        var searched = 0
        while true {
            if let newline = buffer[searched...].firstIndex(of: UInt8(ascii: "\n")) {
                var line = buffer[..<newline]
                if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                defer { buffer.removeSubrange(...newline) }
                return String(decoding: line, as: UTF8.self)
            }
            searched = buffer.count
            guard try fill(what: "a line") else {
                guard !buffer.isEmpty else { return nil }
                defer { buffer.removeAll() }
                return String(decoding: buffer, as: UTF8.self)
            }
        }
    }

    /// Reads more into the buffer; false at the end of input. A buffer past the limit throws.
    private mutating func fill(what: String) throws -> Bool {
        guard !ended else { return false }
        // read(2) returns what has arrived, so a program that writes a line and waits for the
        // answer gets it (FileHandle.readData(ofLength:) would wait for 64 KiB or the end).
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var count: Int
        repeat {
            count = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
        } while count < 0 && errno == EINTR
        guard count >= 0 else { throw ReadFailure(reason: String(cString: strerror(errno))) }
        guard count > 0 else {
            ended = true
            return false
        }
        buffer += chunk[..<count]
        guard buffer.count <= Self.limit else { throw TooLong(what: what) }
        return true
    }
}
