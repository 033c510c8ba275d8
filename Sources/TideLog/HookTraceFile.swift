import Foundation
import Synchronization
import TideCore
import TideFiles

/// A trace of hook calls as JSON Lines (`--trace-hooks[=FILE]`, docs/plugins.md): one object
/// per call, in the order the calls end, with the fields of ``HookCall`` and, where several
/// sessions share the file, the `source` each came from (a script and its row, a request).
///
/// ```swift
/// let file = try HookTraceFile(path: "trace.jsonl")
/// session.hookTrace = file.trace(source: "greeting.tide")
/// ```
public final class HookTraceFile: Sendable {
    /// Where the records go: a path, or `stderr`.
    public let path: String
    private let descriptor: Int32
    private let owned: Bool
    /// Whether a write has failed: it is reported once, and the trace stops.
    private let failed = Atomic<Bool>(false)
    private let records = Atomic<Int>(0)
    private let writing = Mutex(())
    private let warn: @Sendable (String) -> Void

    /// A trace written to `path` (made, or emptied), or to standard error when it is `nil` or
    /// `-`; `warn` hears once if a write fails later.
    public init(path: String?, warn: @escaping @Sendable (String) -> Void = { _ in }) throws(OutputFileError) {
        self.warn = warn
        guard let path, path != "-" else {
            self.path = "stderr"
            descriptor = STDERR_FILENO
            owned = false
            return
        }
        self.path = path
        if let own = OutputFile.openDescriptor(path) {
            descriptor = own
            owned = false
            return
        }
        do {
            try OutputFile.prepareFolder(URL(fileURLWithPath: path).deletingLastPathComponent().path)
        } catch {
            throw OutputFileError("cannot write the trace of hook calls to \(path): \(error)")
        }
        let opened = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
        guard opened >= 0 else {
            throw OutputFileError("\(path): cannot write the trace of hook calls: \(FileSystemFailure.reason(errno: errno))")
        }
        descriptor = opened
        owned = true
    }

    deinit {
        if owned { close(descriptor) }
    }

    /// How many calls were recorded.
    public var recordCount: Int { records.load(ordering: .relaxed) }

    /// The trace of one session, whose records carry `source` when it is not `nil`.
    public func trace(source: String? = nil) -> any HookTrace {
        SourcedTrace(file: self, source: source)
    }

    /// Writes one record as a line.
    func write(_ call: HookCall, source: String?) {
        guard !failed.load(ordering: .relaxed) else { return }
        records.add(1, ordering: .relaxed)
        let line = Data((Self.line(call, source: source) + "\n").utf8)
        let failure: Int32? = writing.withLock { _ in OutputFile.writeAll(line, to: descriptor).failure }
        if let failure, !failed.exchange(true, ordering: .relaxed) {
            let reason = failure == 0 ? "the device took no more" : FileSystemFailure.reason(errno: failure)
            warn("\(path): the trace of hook calls stopped: \(reason)")
        }
    }

    /// One record as a JSON object, its fields in a fixed order.
    static func line(_ call: HookCall, source: String?) -> String {
        var fields: [(String, String)] = []
        if let source { fields.append(("source", json(source))) }
        fields += [("plugin", json(call.plugin)), ("hook", json(call.hook.rawValue))]
        if let position = call.position { fields.append(("position", "\(position)")) }
        fields += [("given", json(call.given)), ("outcome", json(call.outcome))]
        if let instructions = call.instructions { fields.append(("instructions", "\(instructions)")) }
        fields.append(("microseconds", HookCostTable.fixed(call.microseconds, digits: 1)))
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    private static func json(_ text: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        let data = (try? encoder.encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}

/// One session's view of a ``HookTraceFile``.
private struct SourcedTrace: HookTrace {
    let file: HookTraceFile
    let source: String?

    func record(_ call: HookCall) { file.write(call, source: source) }
}
