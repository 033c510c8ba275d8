import Foundation
import Hummingbird
import TideCore
import TideOpenAI

extension ChatServer {
    /// The most inputs one `/v1/embeddings` request may hold, as OpenAI's limit is.
    static let maximumEmbeddingInputs = 2048

    /// `POST /v1/embeddings`: the vectors of the request's inputs from the server's embedding
    /// model (`--embedding-model`, or the served model's own with `--embeddings`), in OpenAI's
    /// shape; a 501 that says how to start the server with one when it has none.
    func embeddings(_ request: Request) async throws(APIError) -> Response {
        guard let embedder = configuration.embedder else {
            throw APIError(status: 501, message: "this server has no embedding model: start tide serve with --embedding-model NAME, "
                               + "or --embeddings for the served model's own", type: "not_implemented_error")
        }
        var request = request
        let body = try await readRequest(EmbeddingRequest.self, from: &request, what: "an embeddings request").body
        let name = configuration.embeddingModelName ?? configuration.modelName
        if configuration.strictModel || roster.names.count > 1, let model = body.model, model.lowercased() != name.lowercased() {
            throw APIError(status: 404, message: "The model '\(model)' does not exist; this server embeds with '\(name)'",
                           code: "model_not_found", param: "model")
        }
        try checkSize(of: body.input)
        let embeddings: Embeddings
        do {
            embeddings = try await embedder.embed(body.input)
        } catch EmbeddingError.noVector(let model) {
            throw APIError(status: 500, message: EmbeddingError.noVector(model: model).description, type: "server_error")
        } catch let error as EmbeddingError {
            throw .invalid(error.description, param: "input")
        } catch {
            throw .unexpected(error)
        }
        if let dimensions = body.dimensions, let length = embeddings.vectors.first?.count, dimensions != length {
            throw .invalid("dimensions is \(dimensions), but this model's vectors have \(length) and cannot be shortened; "
                               + "leave out dimensions or ask for \(length)", param: "dimensions")
        }
        do {
            return try Response.json(EmbeddingList(embeddings, model: name, format: body.encodingFormat))
        } catch {
            throw .unexpected(error)
        }
    }

    /// Refuses more inputs, or more characters, than the server's limits.
    private func checkSize(of input: EmbeddingInput) throws(APIError) {
        guard input.count <= Self.maximumEmbeddingInputs else {
            throw .invalid("input holds \(input.count) inputs, over the limit of \(Self.maximumEmbeddingInputs); send them in several requests",
                           param: "input", code: "request_too_large")
        }
        guard case .texts(let texts) = input else { return }
        let limit = configuration.serverLimits.maximumCharacters
        let characters = texts.reduce(0) { $0 + $1.unicodeScalars.count }
        guard characters <= limit else {
            throw .invalid("input holds \(characters) characters, over this server's limit of \(limit); send less "
                               + "(tide serve --max-characters sets the limit)", param: "input", code: "request_too_large")
        }
    }
}
