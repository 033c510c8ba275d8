import ArgumentParser
import TideCore
import TideLog

/// `--no-log`, shared by the commands that log their exchanges (`generate`, `chat`, `run`).
struct LogOptions: ParsableArguments {
    @Flag(name: .customLong("no-log"), help: "Keep this command's exchanges out of the conversation log (tide logs).")
    var noLog = false

    /// The log this command writes to, `nil` when logging is off (`--no-log`, `tide logs off`,
    /// `TIDE_NO_LOG=1`).
    func database() -> LogDatabase? {
        Self.database(enabled: !noLog)
    }

    /// The log, if `enabled` and logging is on; its first failure is a warning on standard error.
    static func database(enabled: Bool) -> LogDatabase? {
        let location = LogLocation()
        guard enabled, location.isOn else { return nil }
        return LogDatabase(path: location.database) { Terminal.warn("tide: warning: " + $0) }
    }
}
