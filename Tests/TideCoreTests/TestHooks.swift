import Synchronization
import TideCore

/// A Swift hook configured by closures, recording every call into a shared journal.
final class TestHook: ChatHook, Sendable {
    let name: String
    let points: Set<HookPoint>
    let journal: Journal
    let promptBody: @Sendable (inout PromptContext) throws -> PromptDecision
    let logitsBody: @Sendable (any LogitsView) throws -> Void
    let stopBody: @Sendable (ReplyProgress) throws -> String?
    let tokenBody: @Sendable (TokenInfo, ReplyProgress) throws -> TokenDecision
    let replyBody: @Sendable (inout FinishedReply) throws -> Void

    init(_ name: String, _ points: Set<HookPoint>, journal: Journal,
         prompt: @escaping @Sendable (inout PromptContext) throws -> PromptDecision = { _ in .proceed },
         logits: @escaping @Sendable (any LogitsView) throws -> Void = { _ in },
         stop: @escaping @Sendable (ReplyProgress) throws -> String? = { _ in nil },
         token: @escaping @Sendable (TokenInfo, ReplyProgress) throws -> TokenDecision = { _, _ in .pass },
         reply: @escaping @Sendable (inout FinishedReply) throws -> Void = { _ in })
    {
        self.name = name
        self.points = points
        self.journal = journal
        self.promptBody = prompt
        self.logitsBody = logits
        self.stopBody = stop
        self.tokenBody = token
        self.replyBody = reply
    }

    func onPrompt(_ prompt: inout PromptContext) throws -> PromptDecision {
        journal.add("\(name).prompt")
        return try promptBody(&prompt)
    }
    func onLogits(_ logits: any LogitsView, reply: ReplyProgress) throws {
        journal.add("\(name).logits")
        try logitsBody(logits)
    }
    func shouldStop(_ reply: ReplyProgress) throws -> StopDecision {
        journal.add("\(name).stop")
        return try stopBody(reply).map { .stop(reason: $0) } ?? .proceed
    }
    func onToken(_ token: TokenInfo, reply: ReplyProgress) throws -> TokenDecision {
        journal.add("\(name).token \(token.text)")
        return try tokenBody(token, reply)
    }
    func onReply(_ reply: inout FinishedReply) throws {
        journal.add("\(name).reply")
        try replyBody(&reply)
    }
}

/// An ordered record of hook calls.
final class Journal: Sendable {
    private let entries = Mutex<[String]>([])
    func add(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

struct Boom: Error, CustomStringConvertible {
    var description: String { "boom" }
}
