import TideModels
import TideRemote

extension RemoteServer {
    /// The one model this server runs, as its `GET /v1/models` lists them; an error that ends with
    /// `remedy` when it lists none or several.
    public func onlyModel(timeout: Duration? = nil, remedy: String) async throws -> String {
        let names = try await modelNames(timeout: timeout)
        guard names.count == 1, let only = names.first else {
            throw ServerModelsError(names.isEmpty ? "the server at \(self) lists no models; \(remedy)"
                : "the server at \(self) runs \(names.count) models (\(names.joined(separator: ", "))); \(remedy)")
        }
        return only
    }
}

extension RemoteServer {
    /// The names of the models the server lists (`GET /v1/models`).
    public func modelNames(timeout: Duration? = nil) async throws -> [String] {
        try await RemoteBackend.modelNames(at: url, apiKey: apiKey, timeout: timeout ?? RemoteBackend.defaultTimeout)
    }
}

/// A server that does not run exactly one model, where one was to be found.
public struct ServerModelsError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
