import Foundation
import TideCore

/// The body of `POST /v1/embeddings`, as OpenAI defines it: `input` a text, a list of texts, a
/// list of token ids or a list of such lists; `encoding_format` `float` (the default) or `base64`
/// (the vectors' little-endian 32-bit floats, which the official Python client asks for);
/// `dimensions`, which only the model's own length satisfies (its vectors cannot be shortened);
/// `model`, optional as llama-server has it. `user` is checked for its type; other fields are
/// ignored, as OpenAI-compatible servers do. A wrong field is a ``RequestFieldError`` naming it.
public struct EmbeddingRequest: Codable, Sendable, Hashable {
    /// The model named, if any.
    public var model: String?
    /// What to embed.
    public var input: EmbeddingInput
    /// How the vectors are written.
    public var encodingFormat: EncodingFormat
    /// The length asked for, if any.
    public var dimensions: Int?

    /// A request for the vectors of `input` from `model`, as numbers.
    public init(model: String?, input: EmbeddingInput) {
        self.model = model
        self.input = input
        encodingFormat = .float
    }

    /// How the vectors are written.
    public enum EncodingFormat: String, Sendable, Hashable {
        /// Lists of numbers.
        case float
        /// Base64 of the little-endian 32-bit floats.
        case base64
    }

    enum CodingKeys: String, CodingKey {
        case model, input, encodingFormat = "encoding_format", dimensions, user
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        model = try container.decodeIfPresent(String.self, forKey: .model)
        let shape = "input must be a text, a list of texts, a list of token ids or a list of lists of token ids"
        guard container.contains(.input) else { throw RequestFieldError(field: "input", message: "input is missing: send the text to embed") }
        if let text = try? container.decode(String.self, forKey: .input) {
            input = .texts([text])
        } else if let texts = try? container.decode([String].self, forKey: .input) {
            input = .texts(texts)
        } else if let tokens = try? container.decode([Int32].self, forKey: .input) {
            input = .tokens([tokens])
        } else if let sequences = try? container.decode([[Int32]].self, forKey: .input) {
            input = .tokens(sequences)
        } else {
            throw RequestFieldError(field: "input", message: shape)
        }
        guard input.count > 0 else { throw RequestFieldError(field: "input", message: "input is an empty list: send at least one text") }
        let format = try container.decodeIfPresent(String.self, forKey: .encodingFormat) ?? "float"
        guard let encoding = EncodingFormat(rawValue: format) else {
            throw RequestFieldError(field: "encoding_format", message: "encoding_format must be float or base64, not '\(format)'")
        }
        encodingFormat = encoding
        dimensions = try container.decodeWholeNumberIfPresent(forKey: .dimensions)
        _ = try container.decodeIfPresent(String.self, forKey: .user)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(model, forKey: .model)
        switch input {
        case .texts(let texts): try container.encode(texts, forKey: .input)
        case .tokens(let sequences): try container.encode(sequences, forKey: .input)
        }
        try container.encode(encodingFormat.rawValue, forKey: .encodingFormat)
        try container.encodeIfPresent(dimensions, forKey: .dimensions)
    }
}

/// The answer of `POST /v1/embeddings`: one vector an input, in OpenAI's shape.
public struct EmbeddingList: Codable, Sendable {
    /// One input's vector.
    public struct Item: Codable, Sendable {
        public var object = "embedding"
        public var index: Int
        public var embedding: Vector

        enum CodingKeys: String, CodingKey { case object, index, embedding }

        init(index: Int, embedding: Vector) {
            self.index = index
            self.embedding = embedding
        }

        /// Read leniently, as servers write it: `object` may be left out.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            index = try container.decode(Int.self, forKey: .index)
            embedding = try container.decode(Vector.self, forKey: .embedding)
        }
    }

    /// A vector as written: numbers, or base64 of their little-endian 32-bit floats.
    public enum Vector: Codable, Sendable {
        case float([Float])
        case base64(String)

        /// The numbers, `nil` for base64 that is not whole 32-bit floats.
        public var values: [Float]? {
            switch self {
            case .float(let values): return values
            case .base64(let text):
                guard let data = Data(base64Encoded: text), data.count % 4 == 0 else { return nil }
                return stride(from: 0, to: data.count, by: 4).map { offset in
                    Float(bitPattern: data[data.startIndex + offset..<data.startIndex + offset + 4].reversed()
                        .reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
                }
            }
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let values = try? container.decode([Float].self) { self = .float(values) } else { self = .base64(try container.decode(String.self)) }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .float(let values): try container.encode(values)
            case .base64(let text): try container.encode(text)
            }
        }
    }

    public struct Usage: Codable, Sendable {
        public var promptTokens: Int
        public var totalTokens: Int

        enum CodingKeys: String, CodingKey { case promptTokens = "prompt_tokens", totalTokens = "total_tokens" }
    }

    public var object = "list"
    public var data: [Item]
    public var model: String
    public var usage: Usage

    enum CodingKeys: String, CodingKey { case object, data, model, usage }

    /// Read leniently, as servers write it: `object`, `model` and `usage` may be left out.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        data = try container.decode([Item].self, forKey: .data)
        model = try container.decodeIfPresent(String.self, forKey: .model) ?? ""
        usage = try container.decodeIfPresent(Usage.self, forKey: .usage) ?? Usage(promptTokens: 0, totalTokens: 0)
    }

    /// `embeddings` of `model`, written as `format` asks.
    public init(_ embeddings: Embeddings, model: String, format: EmbeddingRequest.EncodingFormat) {
        data = embeddings.vectors.enumerated().map { index, vector in
            Item(index: index, embedding: format == .float ? .float(vector) : .base64(Self.base64(vector)))
        }
        self.model = model
        usage = Usage(promptTokens: embeddings.tokens, totalTokens: embeddings.tokens)
    }

    /// `vector`'s little-endian 32-bit floats in base64.
    static func base64(_ vector: [Float]) -> String {
        var bytes = [UInt8]()
        bytes.reserveCapacity(vector.count * 4)
        for value in vector {
            withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 }
        }
        return Data(bytes).base64EncodedString()
    }
}
