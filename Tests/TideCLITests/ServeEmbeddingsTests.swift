import Foundation
import Testing
import TideTestSupport

extension CommandLineTests.ServeCommandTests {
    /// `tide serve --embedding-model` answers `POST /v1/embeddings` as the official `openai`
    /// client reads it — its default base64 and plain numbers, a list of texts, token ids — with
    /// the vectors `tide embed` makes locally, and `tide embed --remote` reads them back; what
    /// cannot be embedded is a 400 naming the field, and the server goes on.
    @Test func embeddingsAreServedAsClientsReadThem() async throws {
        let server = try await TideServer(["--embedding-model", "all-minilm-l6-v2"])
        let texts = ["The tide comes in twice a day.", "Paris is the capital of France."]
        let result = try #require(try server.python("""
            import json, sys, openai
            client = openai.OpenAI(base_url=sys.argv[1], api_key="unused")
            texts = \(String(decoding: try JSONSerialization.data(withJSONObject: texts), as: UTF8.self))
            base64 = client.embeddings.create(model="all-minilm-l6-v2", input=texts)
            floats = client.embeddings.create(model="all-minilm-l6-v2", input=texts[0], encoding_format="float")
            tokens = client.embeddings.create(model="all-minilm-l6-v2", input=[[101, 1996, 10401, 102]])
            errors = []
            for body in [{"input": texts, "dimensions": 100}, {"input": [[101, 99999]]}, {"input": []},
                         {"input": [""] * 2049}, {"input": "x", "encoding_format": "int8"}]:
                try:
                    client.embeddings.create(model="all-minilm-l6-v2", **body)
                    errors.append(None)
                except openai.BadRequestError as error:
                    errors.append(error.body)
            print(json.dumps({"base64": [d.embedding for d in base64.data], "indices": [d.index for d in base64.data],
                "usage": base64.usage.prompt_tokens, "model": base64.model, "float": floats.data[0].embedding,
                "tokens": len(tokens.data[0].embedding), "errors": errors}))
            """) as? [String: Any])
        let served = try #require(result["base64"] as? [[Double]])
        #expect(result["indices"] as? [Int] == [0, 1] && result["model"] as? String == "all-minilm-l6-v2")
        #expect((result["usage"] as? Int ?? 0) > 10, "the tokens read: \(result["usage"] ?? "")")
        #expect(result["tokens"] as? Int == 384)
        let local = try TideProcess.run(["embed"] + texts)
        let localVectors = try local.stdout.split(separator: "\n").map {
            try #require((try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["embedding"] as? [Double])
        }
        func cosine(_ a: [Double], _ b: [Double]) -> Double { zip(a, b).reduce(0) { $0 + $1.0 * $1.1 } }
        for (one, other) in zip(served, localVectors) { #expect(one.count == 384 && cosine(one, other) > 0.9999) }
        #expect(cosine(try #require(result["float"] as? [Double]), localVectors[0]) > 0.9999)
        let errors = try #require(result["errors"] as? [Any])
        let params = errors.map { (($0 as? [String: Any])?["param"] as? String) ?? "accepted" }
        #expect(params == ["dimensions", "input", "input", "input", "encoding_format"], "\(errors)")

        let remote = try TideProcess.run(["embed", "--remote", server.url.absoluteString, texts[0]])
        #expect(remote.status == 0, "\(remote.stderr)")
        let line = try #require(try JSONSerialization.jsonObject(with: Data(remote.stdout.utf8)) as? [String: Any])
        #expect(cosine(try #require(line["embedding"] as? [Double]), localVectors[0]) > 0.9999)
        let (status, health, _) = try await server.send("GET", "health")
        #expect(status == 200 && health["status"] as? String == "ok", "the server goes on")
    }

    /// `--embeddings` serves the chat model's own states, averaged; a server with neither option
    /// answers 501 saying how to have embeddings.
    @Test func theServedModelsOwnEmbeddingsOrA501() async throws {
        let own = try await TideServer(["--embeddings"])
        let (status, json, _) = try await own.send("POST", "v1/embeddings", body: Data(#"{"input": ["Hello", "Goodbye"]}"#.utf8))
        let data = try #require(json["data"] as? [[String: Any]], "\(json)")
        #expect(status == 200 && data.count == 2 && (data.first?["embedding"] as? [Double])?.count == 576, "SmolLM2's 576 dimensions")
        // A long text pooled whole, whatever else shares its decode: its vector alone and beside a short text agree.
        let long = String(repeating: "The tide comes in over the sand and goes out again. ", count: 40)
        func vectors(_ texts: [String]) async throws -> [[Double]] {
            let body = try JSONSerialization.data(withJSONObject: ["input": texts])
            let (status, json, _) = try await own.send("POST", "v1/embeddings", body: body)
            #expect(status == 200, "\(json)")
            return (json["data"] as? [[String: Any]] ?? []).compactMap { $0["embedding"] as? [Double] }
        }
        let beside = try await vectors(["Hello", long])
        let alone = try await vectors([long])
        let cosine = zip(try #require(beside.last), try #require(alone.first)).reduce(0) { $0 + $1.0 * $1.1 }
        #expect(beside.count == 2 && cosine > 0.999, "\(cosine)")
        let plain = try await TideServer()
        let (refused, error, _) = try await plain.send("POST", "v1/embeddings", body: Data(#"{"input": "Hello"}"#.utf8))
        #expect(refused == 501 && ((error["error"] as? [String: Any])?["message"] as? String ?? "").contains("--embedding-model"), "\(error)")
    }
}
