import Foundation
import NIOCore

/// Why `tide serve` cannot listen where it was asked, in words that say what to do.
public struct ListenError: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String

    /// The error that `error` is, for a server binding `host`:`port`; `nil` if it is not one of
    /// a socket that cannot be bound.
    init?(_ error: any Error, host: String, port: Int) {
        let code = (error as? IOError)?.errnoCode
        let text = "\(error)"
        if code == EADDRINUSE || text.contains("Address already in use") {
            description = "port \(port) on \(host) is in use by another program; pick another with --port, or stop that program"
        } else if code == EACCES || text.contains("Permission denied") {
            description = "listening on port \(port) needs privileges this user does not have; pick a port above 1023 with --port"
        } else if code == EADDRNOTAVAIL || text.contains("Cannot assign requested address") {
            description = "this machine has no address \(host) to listen on; use --host 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)"
        } else {
            return nil
        }
    }
}
