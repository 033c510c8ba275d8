import ArgumentParser
import TideCore
import TideLog

/// `--continue` and `--resume ID` of `tide chat` and `tide generate`: go on with a logged
/// conversation, whose model (unless `--model`), system prompt (unless `--system`), parameters
/// (the last reply's, under the options given) and plugins (the last reply's, then `--plugin`'s)
/// come back.
struct ResumeOptions: ParsableArguments {
    @Flag(name: [.customShort("c"), .customLong("continue")],
          help: "Go on with the newest conversation this command logged.")
    var continueLast = false

    @Option(help: ArgumentHelp("Go on with the logged conversation ID (tide logs lists them).", valueName: "id"))
    var resume: Int64?

    func validate() throws {
        if continueLast && resume != nil { throw ValidationError("--continue and --resume both name a conversation; give one") }
    }

    /// The conversation asked for — `resume`, or the newest from `source` under `--continue` — or
    /// `nil` when neither is given.
    func conversation(newestFrom source: LogSource) throws -> LoggedConversation? {
        guard continueLast || resume != nil else { return nil }
        let database = LogsCommand.database()  // nil when nothing is logged yet
        let id: Int64
        if let resume {
            id = resume
        } else if let newest = try database?.latest(from: source) {
            id = newest.id
        } else {
            throw CommandFailure("the log holds no \(source.rawValue) conversation to continue; tide logs lists what it holds")
        }
        guard let conversation = try database?.conversation(id) else {
            throw CommandFailure("the log holds no conversation \(id); tide logs lists them")
        }
        return conversation
    }
}
