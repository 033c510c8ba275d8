import AsyncHTTPClient
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
}
