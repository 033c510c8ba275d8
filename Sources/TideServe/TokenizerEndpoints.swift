import Foundation
import Hummingbird
import TideCore
import TideFormat
import TideOpenAI

/// llama-server's tokenizer endpoints, on the served model's own tokenizer and template:
/// `POST /tokenize`, `POST /detokenize`, `POST /apply-template`, and vLLM's `GET /tokenizer_info`
/// (which evaluation harnesses ask before tokenizing through the server). `/tokenize` and
/// `/detokenize` also take vLLM's field names (`prompt`, `add_special_tokens`) and answer with
/// both servers' (`content` and `prompt`).
extension ChatServer {
    /// `POST /tokenize`: `content` (or `prompt`) as the model's tokens, with `add_special` (or
    /// `add_special_tokens`, default false), `parse_special` (default true) and `with_pieces`
    /// (each token's id and text, or its bytes where they are not whole UTF-8).
    func tokenize(_ request: Request) async throws(APIError) -> Response {
        struct Body: Decodable {
            var content: String
            var addSpecial: Bool
            var parseSpecial: Bool
            var withPieces: Bool

            enum Keys: String, CodingKey {
                case content, prompt, addSpecial = "add_special", addSpecialTokens = "add_special_tokens"
                case parseSpecial = "parse_special", withPieces = "with_pieces"
            }

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Keys.self)
                guard let text = try container.decodeIfPresent(String.self, forKey: .content)
                    ?? container.decodeIfPresent(String.self, forKey: .prompt)
                else { throw RequestFieldError(field: "content", message: "content is missing: send the text to tokenize") }
                content = text
                addSpecial = try container.decodeIfPresent(Bool.self, forKey: .addSpecial)
                    ?? container.decodeIfPresent(Bool.self, forKey: .addSpecialTokens) ?? false
                parseSpecial = try container.decodeIfPresent(Bool.self, forKey: .parseSpecial) ?? true
                withPieces = try container.decodeIfPresent(Bool.self, forKey: .withPieces) ?? false
            }
        }
        /// A token with its text, or its bytes where they are not whole UTF-8 (llama-server's shape).
        struct Piece: Encodable {
            var id: Int32
            var bytes: [UInt8]

            enum Keys: String, CodingKey { case id, piece }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(id, forKey: .id)
                if let text = String(validating: bytes, as: UTF8.self) {
                    try container.encode(text, forKey: .piece)
                } else {
                    try container.encode(bytes, forKey: .piece)
                }
            }
        }
        struct Tokens: Encodable {
            var tokens: [Int32]
        }
        struct Pieces: Encodable {
            var tokens: [Piece]
        }
        return try await answer(request, as: Body.self) { body, _, tokenizer, _ in
            let limit = configuration.serverLimits.maximumCharacters
            let characters = body.content.unicodeScalars.count
            guard characters <= limit else {
                throw APIError.invalid("content holds \(characters) characters, over this server's limit of \(limit); send less "
                                           + "(tide serve --max-characters sets the limit)", param: "content", code: "request_too_large")
            }
            let tokens = try tokenizer.tokens(of: body.content, addSpecial: body.addSpecial, parseSpecial: body.parseSpecial)
            guard body.withPieces else { return try Response.json(Tokens(tokens: tokens)) }
            return try Response.json(Pieces(tokens: tokens.map { Piece(id: $0, bytes: tokenizer.bytes(of: $0)) }))
        }
    }

    /// `POST /detokenize`: `tokens` as text (`content`, and `prompt` for vLLM's clients); an id
    /// the model does not have is refused, naming it.
    func detokenize(_ request: Request) async throws(APIError) -> Response {
        struct Body: Decodable {
            var tokens: [Int]

            enum Keys: String, CodingKey { case tokens }

            /// `tokens` as whole numbers; a fraction is named by its place.
            init(from decoder: any Decoder) throws {
                let numbers = try decoder.container(keyedBy: Keys.self).decode([Double].self, forKey: .tokens)
                tokens = try numbers.enumerated().map { index, number in
                    guard let token = Int(exactly: number) else {
                        throw RequestFieldError(field: "tokens[\(index)]", message: "tokens[\(index)] must be a whole token id, not \(number)")
                    }
                    return token
                }
            }
        }
        struct Text: Encodable {
            var content: String
            var prompt: String
        }
        return try await answer(request, as: Body.self) { body, _, tokenizer, _ in
            let limit = configuration.serverLimits.maximumCharacters
            guard body.tokens.count <= limit else {
                throw APIError.invalid("tokens holds \(body.tokens.count) tokens, over this server's limit of \(limit); send fewer "
                                           + "(tide serve --max-characters sets the limit)", param: "tokens", code: "request_too_large")
            }
            var bytes: [UInt8] = []
            for (index, token) in body.tokens.enumerated() {
                guard (0..<tokenizer.vocabularySize).contains(token) else {
                    throw APIError.invalid("tokens[\(index)] is \(token), not a token id of this model (0 to \(tokenizer.vocabularySize - 1))",
                                           param: "tokens[\(index)]")
                }
                bytes += tokenizer.bytes(of: Int32(token))
            }
            let text = String(decoding: bytes, as: UTF8.self)
            return try Response.json(Text(content: text, prompt: text))
        }
    }

    /// `POST /apply-template`: `messages` (and `tools`) as the prompt the model is given for them,
    /// read as a chat completion's are (the server's system prompt added when they have none),
    /// before the plugins' `on_prompt` hooks.
    func applyTemplate(_ request: Request) async throws(APIError) -> Response {
        struct Body: Decodable {
            var messages: [ChatCompletionRequest.Message]
        }
        struct Prompt: Encodable {
            var prompt: String
        }
        return try await answer(request, as: Body.self) { body, lease, tokenizer, json in
            let tools = try ToolOffer.requested(in: json)
            let job = try CompletionJob(ChatCompletionRequest(model: lease.name, messages: body.messages), format: nil,
                                        tools: tools, configuration: lease.configuration, sequences: lease.pool.capacity)
            let offered = job.parameters.offersTools ? job.parameters.tools : []
            return try Response.json(Prompt(prompt: try tokenizer.prompt(for: job.messages, offering: offered)))
        }
    }

    /// `GET /tokenizer_info`: the texts of the model's BOS and EOS tokens, and the context a
    /// request may fill.
    func tokenizerInfo(_ request: Request) async throws -> Response {
        struct Info: Encodable {
            var bosToken: String?
            var eosToken: String?
            var modelMaxLength: Int

            enum CodingKeys: String, CodingKey { case bosToken = "bos_token", eosToken = "eos_token", modelMaxLength = "model_max_length" }
        }
        let lease = try await lease(named: request.uri.queryParameters["model"].map(String.init))
        let tokenizer = try tokenizer(of: lease)
        return try Response.json(Info(bosToken: tokenizer.beginningText, eosToken: tokenizer.endText, modelMaxLength: lease.model.contextSize))
    }

    /// Reads `request`'s body as `Body` and answers with `respond`, given the served model it
    /// names (its `model`, else the default one), that model's tokenizer, and the body's JSON
    /// too; every failure is an ``APIError``.
    private func answer<Body: Decodable>(_ request: Request, as type: Body.Type,
                                          _ respond: (Body, ModelLease, any ModelTokenizer, JSONValue) throws -> Response)
        async throws(APIError) -> Response
    {
        var request = request
        let (body, json) = try await readRequest(Body.self, from: &request, what: "a \(request.uri.path) request")
        let lease = try await lease(for: json)
        let tokenizer = try tokenizer(of: lease)
        do {
            return try respond(body, lease, tokenizer, json)
        } catch {
            throw .request(error, context: nil)
        }
    }

    /// The leased model's tokenizer, or a 501 for a model without one.
    private func tokenizer(of lease: ModelLease) throws(APIError) -> any ModelTokenizer {
        guard let tokenizer = lease.model.tokenizer else {
            throw APIError(status: 501, message: "this server's model has no tokenizer to show", type: "not_implemented_error")
        }
        return tokenizer
    }
}
