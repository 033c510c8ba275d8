import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TideCore
import TideAnthropic
import TideFormat
import TideOpenAI

/// A model behind an OpenAI-compatible server (llama-server, vLLM, Ollama, TGI, `tide serve`):
/// each reply is one streamed `POST /v1/chat/completions` (or, for a server spoken to in another
/// API, `/v1/messages` or `/v1/responses`: ``RemoteAPI``), read as server-sent events. Hooks run
/// here as for a local model, on every streamed piece; logits hooks cannot run, since the server
/// samples. Tools are sent in OpenAI's form, and the calls the server returns are run here.
///
/// ```swift
/// let backend = RemoteBackend(url: URL(string: "http://127.0.0.1:8080")!, model: "smollm2")
/// let session = ChatSession(backend: backend)
/// ```
public final class RemoteBackend: ChatBackend {
    /// The server's base URL (the `/v1/…` paths are added to it).
    public let url: URL
    /// The servers replies go to: ``url`` and its replicas.
    public let pool: ReplicaPool
    /// The model name sent with each request.
    public let model: String
    public let contextSize: Int
    public let endOfGenerationStrings: [String] = []
    public let supportsLogits = false
    /// The server offers the tools to its model (OpenAI's `tools`) and returns the calls as
    /// `tool_calls`; Tide's hooks run them (client-side tools).
    public let offersToolsItself = true
    /// A server's model may think: its reasoning comes apart from its answer whether the server
    /// streams it as `reasoning_content` (put back between the tags) or leaves the `<think>` block
    /// in the text. A reasoning budget is the server's to keep (llama-server's `--reasoning-budget`).
    public let reasoningMarkers: ReasoningMarkers? = RemoteReplyDecoder.markers
    /// How long the server may take to answer, or stay silent mid-stream, before the reply fails.
    public let timeout: Duration
    /// The API the server is spoken to in.
    public let api: RemoteAPI
    let apiKey: String?

    /// The ``timeout`` unless one is given: two minutes.
    public static let defaultTimeout: Duration = .seconds(120)

    /// A backend for `model` at `url`.
    /// - Parameters:
    ///   - apiKey: sent as a bearer token; never printed.
    ///   - contextSize: the context the server gives the model, for fitting the conversation.
    ///   - timeout: how long the server may stay silent, before its answer or within it.
    ///   - replicas: more servers of the same model; replies are spread over them and `url`
    ///     (``ReplicaPool``).
    ///   - api: the API the server is spoken to in (Chat Completions unless said).
    public init(url: URL, model: String, apiKey: String? = nil, contextSize: Int = 4096,
                timeout: Duration = RemoteBackend.defaultTimeout, replicas: [URL] = [], api: RemoteAPI = .chat) {
        self.url = url
        self.api = api
        pool = ReplicaPool.shared(for: [url] + replicas)
        self.model = model
        self.apiKey = apiKey
        self.contextSize = contextSize
        self.timeout = timeout
    }

    public var modelDescription: ModelDescription {
        ModelDescription(name: model, backend: "remote", contextSize: contextSize)
    }

    /// An estimate (a token for every four bytes, and a few per message): the server alone
    /// knows its tokenizer. The session fits the conversation to ``contextSize`` by this
    /// estimate; a prompt the server still finds too long is refused with an error of its own.
    public func promptTokenCount(for messages: [ChatMessage], rawPrompt: Bool) async throws -> Int {
        messages.reduce(8) { $0 + 4 + ($1.content.utf8.count + 3) / 4 }
    }

    /// The request's JSON, with the fields that ask for `parameters`' format and offer its tools
    /// (Foundation's encoder keeps no key order, and a schema's property order matters, so they
    /// are added to the parsed body).
    static func encode(_ body: ChatCompletionRequest, parameters: GenerationParameters) throws -> [UInt8] {
        let encoded = try JSONEncoder().encode(body)
        var added = parameters.format?.requestFields ?? []
        if parameters.offersTools {
            added += ToolOffer(tools: parameters.tools, choice: parameters.toolChoice, parallel: parameters.parallelToolCalls).requestFields
        }
        guard !added.isEmpty else { return Array(encoded) }
        guard case .object(var fields) = try JSONValue(parsing: String(decoding: encoded, as: UTF8.self)) else {
            preconditionFailure("a request encodes as an object")
        }
        fields.members += added
        return Array(JSONValue.object(fields).text.utf8)
    }

    public func startReply(to messages: [ChatMessage], parameters: GenerationParameters) async throws
        -> sending any ReplyDecoder
    {
        guard !parameters.rawPrompt else { throw RemoteError.rawPrompt(model: model) }
        let bytes: [UInt8]
        switch api {
        case .chat:
            var body = ChatCompletionRequest(model: model, messages: messages.map(ChatCompletionRequest.Message.init), stream: true)
            body.setParameters(parameters)
            bytes = try Self.encode(body, parameters: parameters)
        case .messages:
            do {
                bytes = Array(try MessagesClient.body(model: model, messages: messages, parameters: parameters).text.utf8)
            } catch {
                throw InvalidParameterError(name: error.field, value: "given", requirement: error.message)
            }
        case .responses: bytes = Array(ResponsesClient.body(model: model, messages: messages, parameters: parameters).text.utf8)
        }
        let promptTokens = try await promptTokenCount(for: messages, rawPrompt: false)
        // Taken last, once nothing can throw before the decoder gives the replica back.
        let (replica, server) = pool.acquire()
        let endpoint = Self.endpoint(api.path, at: server)
        var request = HTTPClientRequest(url: endpoint)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Accept", value: "text/event-stream")
        if let apiKey {
            request.headers.add(name: "Authorization", value: "Bearer \(apiKey)")
            // Anthropic's servers read the key from their own header.
            if api == .messages { request.headers.add(name: "x-api-key", value: apiKey) }
        }
        if api == .messages { request.headers.add(name: "anthropic-version", value: "2023-06-01") }
        request.body = .bytes(ByteBuffer(bytes: bytes))
        let pool = pool
        let decoder = RemoteReplyDecoder(url: endpoint, timeout: timeout, promptTokenCount: promptTokens) { error in
            pool.release(replica, failed: error.flatMap(Transience.of) != nil)
        }
        switch api {
        case .chat: try await decoder.start(request, events: ChatChunkReader())
        case .messages: try await decoder.start(request, events: MessagesEventReader())
        case .responses: try await decoder.start(request, events: ResponsesEventReader())
        }
        return decoder
    }

    func endpoint(_ path: String) -> String {
        Self.endpoint(path, at: url)
    }

    static func endpoint(_ path: String, at url: URL) -> String {
        url.absoluteString.hasSuffix("/") ? url.absoluteString + path : url.absoluteString + "/" + path
    }

    /// The names of the models the server at `url` runs (`GET /v1/models`), waiting at most
    /// `timeout` for its answer.
    public static func modelNames(at url: URL, apiKey: String? = nil, timeout: Duration = defaultTimeout) async throws -> [String] {
        let endpoint = endpoint("v1/models", at: url)
        return try await RemoteClients.fetch(ModelList.self, what: "a model list", from: HTTPClientRequest(url: endpoint),
                                             apiKey: apiKey, timeout: timeout).data.map(\.id)
    }

}
