import Foundation
import Testing
import TideCore
import TideRemote
import TideTestSupport

/// The remote backend against servers that fail: a stream that is not JSON, an error event, a
/// connection closed mid-reply, a server gone silent, a connection that never opens. Each
/// failure is said plainly, the partial reply is kept (marked interrupted), and the next turn
/// of the same chat is answered.
@Suite(.serialized) struct RemoteFailureTests {
    func session(_ url: URL, timeout: Duration = RemoteBackend.defaultTimeout) -> ChatSession {
        ChatSession(backend: RemoteBackend(url: url, model: "stub", timeout: timeout), systemPrompt: "Be brief.")
    }

    /// The text streamed before the reply failed, and how it failed.
    func failingReply(_ chat: ChatSession, to message: String) async -> (text: String, error: (any Error)?) {
        var text = ""
        do {
            for try await event in chat.reply(to: message) {
                if case .text(let piece) = event { text += piece }
            }
            return (text, nil)
        } catch {
            return (text, error)
        }
    }

    /// The chat kept "Hello" as an interrupted reply, and answers its next turn.
    func expectPartialKeptAndChatGoesOn(_ chat: ChatSession) async throws {
        let kept = try #require(chat.history.last)
        #expect(kept.role == .assistant && kept.content == "Hello" && kept.interrupted)
        let next = try await chat.reply(to: "Hi").collect()
        #expect(next.texts.joined() == "Hello there.")
        #expect(chat.history.count == 5, "system, the failed exchange, and the new one")
    }

    @Test func aStreamThatIsNotJSON() async throws {
        let server = try await MisbehavingServer()
        let chat = session(server.url)
        let (text, error) = await failingReply(chat, to: "malformed")
        #expect(text == "Hello")
        let expected = RemoteError.malformed(url: server.completions, detail: "not a chat-completion chunk: {this is not json}")
        #expect(error as? RemoteError == expected)
        #expect(expected.description == "\(server.completions) sent a stream Tide cannot read: not a chat-completion chunk: {this is not json}")
        try await expectPartialKeptAndChatGoesOn(chat)
    }

    @Test func anErrorReportedInTheStream() async throws {
        let server = try await MisbehavingServer()
        let chat = session(server.url)
        let (text, error) = await failingReply(chat, to: "error")
        #expect(text == "Hello")
        #expect(error as? RemoteError == .server(url: server.completions, message: "the model ran out of memory"))
        #expect((error.map { "\($0)" } ?? "no error") == "\(server.completions) reported an error: the model ran out of memory")
        try await expectPartialKeptAndChatGoesOn(chat)
    }

    @Test func aConnectionClosedBeforeTheFinish() async throws {
        let server = try await MisbehavingServer()
        let chat = session(server.url)
        let (text, error) = await failingReply(chat, to: "drop")
        #expect(text == "Hello")
        #expect(error as? RemoteError == .dropped(url: server.completions))
        #expect((error.map { "\($0)" } ?? "no error") == "\(server.completions) closed the stream before the reply was complete")
        try await expectPartialKeptAndChatGoesOn(chat)
    }

    @Test func aServerSilentMidStream() async throws {
        let server = try await MisbehavingServer()
        let chat = session(server.url, timeout: .seconds(1))
        let (text, error) = await failingReply(chat, to: "stall")
        #expect(text == "Hello")
        #expect(error as? RemoteError == .timedOut(url: server.completions, seconds: 1))
        #expect((error.map { "\($0)" } ?? "no error") == "\(server.completions) sent nothing for 1 s; giving up: wait longer or check the server")
        try await expectPartialKeptAndChatGoesOn(chat)
    }

    @Test func aServerSilentBeforeItsAnswer() async throws {
        let server = try await MisbehavingServer()
        let chat = session(server.url, timeout: .seconds(1))
        let (text, error) = await failingReply(chat, to: "silent")
        #expect(text.isEmpty)
        #expect(error as? RemoteError == .timedOut(url: server.completions, seconds: 1))
        #expect(chat.history.count == 1, "nothing was said: the exchange is not kept")
        #expect(try await chat.reply(to: "Hi").collect().texts.joined() == "Hello there.")
    }

    @Test func stoppingAReplyTheServerHasNotBegun() async throws {
        let server = try await MisbehavingServer()
        let chat = session(server.url)
        let waiting = Task { try await chat.reply(to: "silent").collect() }
        try await Task.sleep(for: .milliseconds(300))
        chat.cancelReply()
        let stopped = try await waiting.value
        #expect(stopped.summary?.stopReason == .cancelled, "stopped, as a local reply stopped before its first token")
        #expect(stopped.texts.joined().isEmpty)
        #expect(try await chat.reply(to: "Hi").collect().texts.joined() == "Hello there.")
    }

    @Test func stoppingAReplyMidStream() async throws {
        let server = try await MisbehavingServer()
        let chat = session(server.url)
        var text = ""
        var summary: ReplySummary?
        for try await event in chat.reply(to: "stall") {
            switch event {
            case .text(let piece):
                text += piece
                chat.cancelReply()
            case .finished(let finished): summary = finished
            case .hookFailure, .rewound, .toolCall, .toolCallText, .toolResult, .reasoning, .logprobs, .promptLogprobs: break
            }
        }
        #expect(text == "Hello")
        #expect(summary?.stopReason == .cancelled)
        let kept = try #require(chat.history.last)
        #expect(kept.content == "Hello" && kept.interrupted, "kept as stopped, not as a finished reply")
    }

    @Test func aConnectionThatNeverOpens() async throws {
        let listener = FullListener()
        let url = URL(string: "http://127.0.0.1:\(listener.port)")!
        let chat = session(url, timeout: .seconds(1))
        let (_, error) = await failingReply(chat, to: "Hi")
        let endpoint = url.absoluteString + "/v1/chat/completions"
        #expect(error as? RemoteError == .unreachable(url: endpoint, reason: "no connection within 1 s"))
        #expect((error.map { "\($0)" } ?? "no error") == "cannot reach \(endpoint): no connection within 1 s")
        await #expect(throws: RemoteError.unreachable(url: url.absoluteString + "/v1/models", reason: "no connection within 1 s")) {
            _ = try await RemoteBackend.modelNames(at: url, timeout: .seconds(1))
        }
    }
}
