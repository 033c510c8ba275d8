#if canImport(Glibc)
import Glibc
#endif

/// The machine's processes as /proc shows them at one moment: each one's parent and session, and
/// whether it has ended (a zombie, not yet reaped). Empty where there is no /proc.
struct ProcessTable {
    /// A process: its parent's id, its session's id, and whether it has ended.
    struct Entry: Hashable {
        var parent: pid_t
        var session: pid_t
        var ended: Bool
    }

    /// Each process by its id.
    let entries: [pid_t: Entry]

    /// The table now.
    static func read() -> ProcessTable {
        var entries: [pid_t: Entry] = [:]
        guard let folder = opendir("/proc") else { return ProcessTable(entries: [:]) }
        defer { closedir(folder) }
        while let item = readdir(folder) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let pid = pid_t(name), let entry = entry(pid) else { continue }
            entries[pid] = entry
        }
        return ProcessTable(entries: entries)
    }

    /// `/proc/PID/stat`, read: `PID (NAME) STATE PARENT GROUP SESSION …`, where NAME may hold
    /// spaces and parentheses, so the fields are counted from the last `)`.
    private static func entry(_ pid: pid_t) -> Entry? {
        let descriptor = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0, let close = buffer[..<count].lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = buffer[(close + 1)..<count].split(separator: UInt8(ascii: " "))
        guard fields.count > 3, let parent = pid_t(String(decoding: fields[1], as: UTF8.self)),
              let session = pid_t(String(decoding: fields[3], as: UTF8.self)) else { return nil }
        return Entry(parent: parent, session: session, ended: fields[0].first == UInt8(ascii: "Z"))
    }

    /// The processes still running among `roots`, those in `sessions`, and all their
    /// descendants.
    func running(from roots: Set<pid_t>, sessions: Set<pid_t>) -> Set<pid_t> {
        var children: [pid_t: [pid_t]] = [:]
        for (pid, entry) in entries { children[entry.parent, default: []].append(pid) }
        var found = roots.filter { entries[$0] != nil }.union(entries.filter { sessions.contains($0.value.session) }.keys)
        var unvisited = Array(found)
        while let pid = unvisited.popLast() {
            for child in children[pid] ?? [] where found.insert(child).inserted { unvisited.append(child) }
        }
        return found.filter { entries[$0]?.ended == false }
    }

    /// Tide's children in sessions other than its own: its MCP servers (each in a session of its
    /// own) and, Tide being a child subreaper (``Subreaper``), what their processes left behind
    /// when they ended. Never a child that Foundation's `Process` started: that one is in Tide's
    /// session, leading a process group, which cannot leave it.
    var childrenInOtherSessions: Set<pid_t> {
        let (tide, session) = (getpid(), getsid(0))
        return Set(entries.filter { $0.value.parent == tide && $0.value.session != session }.keys)
    }
}
