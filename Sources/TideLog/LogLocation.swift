import Foundation

/// Where the conversation log lives and whether it is on: the database at
/// `$XDG_DATA_HOME/tide/logs.db` (by default `~/.local/share/tide/logs.db`), switched off by
/// `tide logs off` (a file `logs-off` beside it) or for one process by `TIDE_NO_LOG=1`.
public struct LogLocation: Sendable, Hashable {
    /// The database file.
    public let database: URL
    /// The file whose presence turns logging off.
    public var offSwitch: URL { database.deletingLastPathComponent().appendingPathComponent("logs-off") }
    /// Whether the environment says not to log (`TIDE_NO_LOG` set to anything but empty or `0`).
    public let disabledByEnvironment: Bool

    /// The log of `environment` (the process's by default).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
        database = data.appendingPathComponent("tide/logs.db")
        let flag = environment["TIDE_NO_LOG"] ?? ""
        disabledByEnvironment = !flag.isEmpty && flag != "0"
    }

    /// Whether `tide logs off` is in force.
    public var switchedOff: Bool { FileManager.default.fileExists(atPath: offSwitch.path) }

    /// Whether exchanges are logged: neither switched off nor disabled by the environment.
    public var isOn: Bool { offReason == nil }

    /// Why exchanges are not logged, or `nil` when they are.
    public var offReason: String? {
        if disabledByEnvironment { return "TIDE_NO_LOG is set" }
        if switchedOff { return "tide logs off is in force (tide logs on turns it on)" }
        return nil
    }

    /// Turns logging on or off for every later process (`tide logs on|off`).
    public func setSwitchedOff(_ off: Bool) throws {
        if off {
            try FileManager.default.createDirectory(at: offSwitch.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("Tide does not log conversations while this file exists: tide logs on removes it.\n".utf8)
                .write(to: offSwitch)
        } else if switchedOff {
            try FileManager.default.removeItem(at: offSwitch)
        }
    }
}
