import ArgumentParser
import TideCore

/// `tide version`: the same as `tide --version`.
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "version", abstract: "Print Tide's version.")

    func run() {
        print(tideVersion)
    }
}
