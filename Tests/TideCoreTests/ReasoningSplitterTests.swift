import Testing
@testable import TideCore
import TideTestSupport

/// Where reasoning ends and the answer begins, however the tags are cut into tokens.
@Suite struct ReasoningSplitterTests {
    /// The pieces through a splitter: the reasoning and the answer each put together, then the
    /// splitter's own record of the reasoning.
    static func split(_ pieces: [String], markers: ReasoningMarkers = ReasoningMarkers()) -> (String, String, String) {
        var splitter = ReasoningSplitter(markers: markers)
        var reasoning = "", answer = ""
        for piece in pieces {
            let part = splitter.append(piece)
            reasoning += part.reasoning
            answer += part.answer
        }
        let rest = splitter.finish()
        return (reasoning + rest.reasoning, answer + rest.answer, splitter.trimmedReasoning)
    }

    @Test func tagsCutAnywhereAreFound() {
        #expect(Self.split(["<thi", "nk>\nSo", "me th", "ought.\n</th", "ink>", "\n", "\nThe answer."])
            == ("\nSome thought.\n", "The answer.", "Some thought."))
        #expect(Self.split(["<think>a</think>b"]) == ("a", "b", "a"))
        #expect(Self.split(["  \n<think>", "x", "</think>\n\n\n", "y\n\nz"]) == ("x", "y\n\nz", "x"))
    }

    @Test func aReplyWithoutTheTagIsAllAnswer() {
        #expect(Self.split(["\nHello", " there"]) == ("", "\nHello there", ""))
        #expect(Self.split(["<thinking>", " aloud"]) == ("", "<thinking> aloud", ""))
        #expect(Self.split(["<thi"]) == ("", "<thi", ""), "a tag begun at the end is text")
        #expect(Self.split(["a < b", "</think>"]) == ("", "a < b</think>", ""))
    }

    @Test func aReplyEndingInsideItsReasoningIsAllReasoning() {
        #expect(Self.split(["<think>", "still going </thi"]) == ("still going </thi", "", "still going </thi"))
    }

    @Test func aPromptThatOpensTheBlockStartsInside() {
        #expect(Self.split(["\nLet me", " see.</think>", "\n\nNo."], markers: ReasoningMarkers(openedByPrompt: true))
            == ("\nLet me see.", "No.", "Let me see."))
    }

    /// Through the engine: reasoning comes as its own events, the answer as text; stop strings and
    /// per-token hooks see only the answer; the history keeps both apart.
    @Test func theEngineGivesTheReasoningApart() async throws {
        let backend = ScriptedBackend { _ in ["<think>", "stop here?", "</think>", "\n\nFine", " stop."] }
        backend.reasoningMarkers = ReasoningMarkers()
        let session = ChatSession(backend: backend, systemPrompt: nil)
        session.parameters.stop = ["here"]
        let reply = try await session.reply(to: "Go").collect()
        #expect(reply.reasoning == ["stop here?"] && reply.text == "Fine stop.")
        let summary = try #require(reply.summary)
        #expect(summary.stopReason == .endOfGeneration && summary.reasoning == "stop here?")
        #expect(summary.statistics.reasoningTokens == 3 && summary.statistics.generatedTokens == 5)
        #expect(session.history.last == ChatMessage(.assistant, "Fine stop.", reasoning: "stop here?"))
    }

    /// `max-tokens` inside the reasoning ends the reply there, the reasoning whole (what was held
    /// back as a possible close tag included) and no answer.
    @Test func maxTokensInsideTheReasoningKeepsItWhole() async throws {
        let backend = ScriptedBackend { _ in ["<think>", "long", " thought</th", "ink>", "x"] }
        backend.reasoningMarkers = ReasoningMarkers()
        let session = ChatSession(backend: backend, systemPrompt: nil)
        session.parameters.maxTokens = 3
        let reply = try await session.reply(to: "Go").collect()
        let summary = try #require(reply.summary)
        #expect(summary.stopReason == .maxTokens && reply.text.isEmpty)
        #expect(reply.reasoning.joined() == "long thought</th" && summary.reasoning == "long thought</th")
    }

    /// A plain-text continuation (`/v1/completions`) and a reply held to a format from its first
    /// token have no reasoning block: the tags are text.
    @Test func aContinuationOrAFormattedReplyIsAllText() async throws {
        for configure in [{ (parameters: inout GenerationParameters) in parameters.rawPrompt = true },
                          { (parameters: inout GenerationParameters) in parameters.format = .json }] {
            let backend = ScriptedBackend { _ in ["<think>", "x", "</think>", "y"] }
            backend.reasoningMarkers = ReasoningMarkers()
            let session = ChatSession(backend: backend, systemPrompt: nil)
            configure(&session.parameters)
            let reply = try await session.reply(to: "Go").collect()
            #expect(reply.reasoning.isEmpty && reply.text == "<think>x</think>y")
        }
    }
}
