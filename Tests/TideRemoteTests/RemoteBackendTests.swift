import Foundation
import Testing
import TideCore
import TideLua
import TideRemote
import TideTestSupport

/// The remote backend against a real OpenAI-compatible server on loopback: llama-cpp-python's,
/// serving the bundled model.
@Suite(.serialized) struct RemoteBackendTests {
    static let plugins = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Plugins")

    func session(_ server: LlamaCppPythonServer, hooks: [any ChatHook] = [], maxTokens: Int = 64) -> ChatSession {
        var parameters = GenerationParameters()
        parameters.temperature = 0
        parameters.maxTokens = maxTokens
        return ChatSession(backend: RemoteBackend(url: server.url, model: "smollm2"),
                           systemPrompt: "You are a helpful assistant.", parameters: parameters, hooks: hooks)
    }

    func plugin(_ spec: String) throws -> LuaPlugin {
        try LuaPlugin(spec: PluginSpec(parsing: spec), locator: PluginLocator(directories: [Self.plugins]))
    }

    /// Which words the server's model picks is its machine's business: the checks hold for any
    /// reply (the words, where they matter, are taken from a first reply of the same server).
    @Test func streamsAReplyAndKeepsTheConversation() async throws {
        let server = try await LlamaCppPythonServer()
        let chat = session(server)
        let reply = try await chat.reply(to: "Write a long story about a lighthouse keeper.").collect()
        #expect(reply.texts.count > 3, "the reply arrives in pieces")
        #expect(reply.texts.joined() == reply.text)
        #expect([.endOfGeneration, .maxTokens].contains(reply.summary?.stopReason))
        let second = try await chat.reply(to: "Repeat the first sentence of your story.").collect()
        #expect(!second.text.isEmpty)
        #expect(chat.history.count == 5, "the conversation goes on")
        #expect(chat.history[2].content == reply.text && chat.history[4].content == second.text)
    }

    /// A word of at least five letters from the middle of `text`.
    func word(in text: String) throws -> String {
        let words = text.split(whereSeparator: { !$0.isLetter }).filter { $0.count >= 5 }
        return String(try #require(words.dropFirst(words.count / 2).first, "\(text)"))
    }

    @Test func pluginsRunOnTheStreamedPieces() async throws {
        let server = try await LlamaCppPythonServer()
        let stopping = session(server, hooks: [try plugin("stop-after-sentences sentences=1")], maxTokens: 400)
        let story = try await stopping.reply(to: "Tell me a long story about a lighthouse keeper.").collect()
        guard case .hook(name: "stop-after-sentences", reason: _)? = story.summary?.stopReason else {
            Issue.record("stop reason \(String(describing: story.summary?.stopReason))")
            return
        }
        #expect((story.summary?.statistics.generatedTokens ?? 400) < 400)
        let next = try await stopping.reply(to: "What is the capital of France?").collect()
        #expect(!next.text.isEmpty, "the cancelled request left the server ready")

        let plain = try await session(server).reply(to: "Write a long story about a lighthouse keeper.").collect().text
        let censoredWord = try word(in: plain)
        let filtered = session(server, hooks: [try plugin("censor-words words=\(censoredWord)")])
        let censored = try await filtered.reply(to: "Write a long story about a lighthouse keeper.").collect().texts.joined()
        let shownWords = censored.split(whereSeparator: { !$0.isLetter }).map { $0.lowercased() }
        #expect(censored.contains(String(repeating: "*", count: censoredWord.count)) && !shownWords.contains(censoredWord.lowercased()),
                "\(censoredWord): \(censored)")
    }

    @Test func stopStringsEndTheReply() async throws {
        let server = try await LlamaCppPythonServer()
        let plain = try await session(server).reply(to: "Write a long story about a lighthouse keeper.").collect().text
        let stop = try word(in: plain)
        let chat = session(server)
        var parameters = chat.parameters
        parameters.stop = [stop]
        chat.parameters = parameters
        let reply = try await chat.reply(to: "Write a long story about a lighthouse keeper.").collect()
        let text = reply.texts.joined()
        #expect(text == String(plain[..<plain.range(of: stop)!.lowerBound]), "\(text)")
    }

    @Test func aLogitsPluginIsRefusedByName() async throws {
        let server = try await LlamaCppPythonServer()
        let chat = session(server, hooks: [try plugin("prefer-words words=Paris")])
        await #expect(throws: UnsupportedHookError(hook: "prefer-words", model: "smollm2", needs: .logits)) {
            _ = try await chat.reply(to: "What is the capital of France?").collect()
        }
    }

    @Test func aServerKilledMidStreamKeepsThePartialReply() async throws {
        let server = try await LlamaCppPythonServer()
        let chat = session(server, maxTokens: 2000)
        var received = ""
        do {
            for try await event in chat.reply(to: "Write a very long story about a dragon.") {
                if case .text(let text) = event {
                    received += text
                    if received.count > 40 { server.kill() }
                }
            }
            Issue.record("the stream should have failed")
        } catch let error as RemoteError {
            #expect(error == .dropped(url: server.url.absoluteString + "/v1/chat/completions")
                || "\(error)".contains("cannot reach"), "\(error)")
        }
        let last = try #require(chat.history.last)
        #expect(last.interrupted)
        #expect(last.content.hasPrefix(String(received.prefix(40))))
        await #expect(throws: RemoteError.self, "the session is usable: the next turn fails cleanly") {
            _ = try await chat.reply(to: "Hello?").collect()
        }
    }

    @Test func refusedConnectionsAndErrorStatusesAreExplained() async throws {
        let port = LoopbackPort.free()
        let nowhere = ChatSession(backend: RemoteBackend(url: URL(string: "http://127.0.0.1:\(port)")!, model: "x"))
        do {
            _ = try await nowhere.reply(to: "Hi").collect()
            Issue.record("nothing listens there")
        } catch {
            #expect("\(error)".hasPrefix("cannot reach http://127.0.0.1:\(port)/v1/chat/completions"), "\(error)")
        }
        #expect(nowhere.history.isEmpty)

        let server = try await LlamaCppPythonServer(contextSize: 256)
        let wrongPath = ChatSession(backend: RemoteBackend(url: server.url.appendingPathComponent("nothing"), model: "smollm2"))
        do {
            _ = try await wrongPath.reply(to: "Hi").collect()
            Issue.record("there is no API there")
        } catch let RemoteError.http(status, _, message, _) {
            #expect(status == 404)
            #expect(message.contains("Not Found"), "the server's own words: \(message)")
        }
        // llama-cpp-python checks the prompt's length once the stream has begun, and ends it.
        let small = session(server)
        let long = Array(repeating: "The quick brown fox jumps over the lazy dog.", count: 80).joined(separator: " ")
        await #expect(throws: RemoteError.self) { _ = try await small.reply(to: long).collect() }
        #expect(try await small.reply(to: "Hi!").collect().summary != nil, "the next request works")
    }
}
