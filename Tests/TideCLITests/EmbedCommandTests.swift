import Foundation
import Testing

extension CommandLineTests {
    /// `tide embed` as a user runs it: texts from the arguments or standard input, one JSON object
    /// a line with a normalised vector of the bundled embedding model's length; a paraphrase is
    /// nearer than an unrelated text (the model's meaning, far beyond any kernel's drift); a text
    /// too long, and an embedding model asked to chat, are refused with what to do.
    @Suite struct EmbedCommandTests {
        static func vectors(_ output: String) throws -> [(index: Int, text: String, vector: [Double])] {
            try output.split(separator: "\n").map { line in
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                return (try #require(object["index"] as? Int), try #require(object["text"] as? String),
                        try #require(object["embedding"] as? [Double]))
            }
        }

        @Test func textsBecomeNormalisedVectors() throws {
            let texts = ["The capital of France is Paris.", "Paris is the capital of France.", "My cat sleeps all afternoon."]
            let run = try TideProcess.run(["embed"] + texts)
            #expect(run.status == 0, "\(run.stderr)")
            let lines = try Self.vectors(run.stdout)
            #expect(lines.map(\.index) == [0, 1, 2] && lines.map(\.text) == texts)
            for line in lines {
                #expect(line.vector.count == 384 && abs(line.vector.reduce(0) { $0 + $1 * $1 } - 1) < 1e-3)
            }
            func cosine(_ a: Int, _ b: Int) -> Double { zip(lines[a].vector, lines[b].vector).reduce(0) { $0 + $1.0 * $1.1 } }
            #expect(cosine(0, 1) > 0.9 && cosine(0, 2) < 0.3, "paraphrase \(cosine(0, 1)), unrelated \(cosine(0, 2))")

            let piped = try TideProcess.run(["embed"], stdin: texts.joined(separator: "\n") + "\n")
            #expect(piped.status == 0, "\(piped.stderr)")
            #expect(try Self.vectors(piped.stdout).map(\.text) == texts, "one text a line")
        }

        @Test func whatCannotBeEmbeddedIsRefused() throws {
            let long = try TideProcess.run(["embed", "short", String(repeating: "word ", count: 600)])
            #expect(long.status == 1 && long.stderr.contains("text 2 has 602 tokens, over the 512"), "\(long.stderr)")
            #expect(long.stdout.isEmpty, "nothing written when a text is refused")
            let chat = try TideProcess.run(["generate", "--model", "all-minilm-l6-v2", "Hi"])
            #expect(chat.status == 1 && chat.stderr.contains("is an embedding model") && chat.stderr.contains("tide embed"), "\(chat.stderr)")
        }
    }
}
