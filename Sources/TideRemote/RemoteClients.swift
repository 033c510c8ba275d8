import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization

/// The HTTP clients of the process: one for each silence timeout in use (usually one), kept
/// for the life of the process and never shut down, as `HTTPClient.shared` is.
enum RemoteClients {
    /// How long a connection may take to open (or the silence timeout, if shorter).
    static let connectTimeout: Duration = .seconds(10)

    private static let clients = Mutex<[Duration: HTTPClient]>([:])

    /// The client whose reads fail after `timeout` of silence. A refused connection is
    /// reported at once, not retried until the connect timeout: the user is waiting.
    static func client(timeout: Duration) -> HTTPClient {
        clients.withLock { clients in
            if let client = clients[timeout] { return client }
            var configuration = HTTPClient.Configuration(timeout: .init(connect: TimeAmount(min(connectTimeout, timeout)),
                                                                        read: TimeAmount(timeout)))
            configuration.connectionPool.retryConnectionEstablishment = false
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            clients[timeout] = client
            return client
        }
    }

    /// Sends `request` with `apiKey` and reads its answer as `T` (`what` it is, for the error when
    /// it is not), at most 16 MiB. A connection that fails, an error status and a body that is not
    /// `T` are ``RemoteError``s naming the URL.
    static func fetch<T: Decodable>(_ type: T.Type, what: String, from request: HTTPClientRequest, apiKey: String?,
                                    timeout: Duration) async throws -> T
    {
        var request = request
        if let apiKey { request.headers.add(name: "Authorization", value: "Bearer \(apiKey)") }
        let response: HTTPClientResponse
        do {
            response = try await client(timeout: timeout).execute(request, deadline: .distantFuture)
        } catch {
            throw RemoteReplyDecoder.describe(error, url: request.url, timeout: timeout)
        }
        guard response.status.code == 200 else {
            throw RemoteError.http(status: Int(response.status.code), url: request.url, message: await RemoteReplyDecoder.message(in: response.body),
                                   retryAfter: RemoteReplyDecoder.retryAfter(response.headers))
        }
        do {
            let body = try await response.body.collect(upTo: 16 * 1024 * 1024)
            return try JSONDecoder().decode(T.self, from: Data(body.readableBytesView))
        } catch {
            throw RemoteError.malformed(url: request.url, detail: "not \(what)")
        }
    }
}
