import Foundation

/// A TCP port on 127.0.0.1 that nothing listens on now, for a server a test starts.
public enum LoopbackPort {
    /// Asks the kernel for a free port (bind to port 0) and releases it.
    public static func free() -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        precondition(descriptor >= 0, "cannot open a socket")
        defer { close(descriptor) }
        return bindToFreePort(descriptor)
    }

    /// Binds `descriptor` to a free port on 127.0.0.1, and returns the port.
    static func bindToFreePort(_ descriptor: Int32) -> Int {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
            }
        }
        precondition(bound, "cannot bind a socket on 127.0.0.1")
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
