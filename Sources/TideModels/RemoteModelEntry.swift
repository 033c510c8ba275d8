import Foundation
import TideCore

/// A model of the user's registry that runs on an OpenAI-compatible server: `--model NAME`
/// sends its replies there.
public struct RemoteModelEntry: Sendable, Hashable, Decodable {
    /// The name users type.
    public var name: String
    /// The server's base URL.
    public var url: URL
    /// The model's name on the server (default: ``name``).
    public var model: String
    /// The environment variable holding the key (default: `TIDE_API_KEY`, then `OPENAI_API_KEY`).
    public var apiKeyVariable: String?
    /// The context the server gives the model (default 4096).
    public var contextLength: Int?
    /// Its system prompt, parameters and plugins (`system_prompt`, `parameters`, `plugins`).
    public var defaults: ModelDefaults
    /// Seconds the server may stay silent before a reply fails (default 120).
    public var timeout: Int?
    /// The API the server is spoken to in (`api`: `chat`, `messages` or `responses`; default `chat`).
    public var api = RemoteAPI.chat

    /// The timeouts accepted, in seconds: up to a day.
    public static let timeoutRange = 1...86_400

    enum CodingKeys: String, CodingKey {
        case name, url, model, timeout, api
        case apiKeyVariable = "api_key_env", contextLength = "context_length"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        let text = try container.decode(String.self, forKey: .url)
        do {
            url = try RemoteServer(parsing: text, apiKey: nil).url
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .url, in: container, debugDescription: error.description)
        }
        model = try container.decodeIfPresent(String.self, forKey: .model) ?? name
        apiKeyVariable = try container.decodeIfPresent(String.self, forKey: .apiKeyVariable)
        contextLength = try container.decodeIfPresent(Int.self, forKey: .contextLength)
        if let contextLength, !ModelDescription.contextSizes.contains(contextLength) {
            throw DecodingError.dataCorruptedError(forKey: .contextLength, in: container, debugDescription:
                "context_length must be from 16 to \(ModelDescription.contextSizes.upperBound), not \(contextLength)")
        }
        defaults = try ModelDefaults(from: decoder)
        if let name = try container.decodeIfPresent(String.self, forKey: .api) {
            guard let api = RemoteAPI(rawValue: name) else {
                throw DecodingError.dataCorruptedError(forKey: .api, in: container, debugDescription:
                    "api must be " + RemoteAPI.allCases.map(\.rawValue).joined(separator: ", ") + ", not \(name)")
            }
            self.api = api
        }
        timeout = try container.decodeIfPresent(Int.self, forKey: .timeout)
        if let timeout, !Self.timeoutRange.contains(timeout) {
            throw DecodingError.dataCorruptedError(forKey: .timeout, in: container, debugDescription:
                "timeout must be from 1 to \(Self.timeoutRange.upperBound) seconds, not \(timeout)")
        }
    }

    /// The server, with the key from this entry's variable (or the usual ones).
    public var server: RemoteServer {
        var server = RemoteServer(url: url, apiKey: RemoteServer.environmentKey(apiKeyVariable))
        server.api = api
        return server
    }
}
