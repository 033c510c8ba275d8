import Foundation

/// A port on 127.0.0.1 where a connection never opens: its listening socket's queue is full
/// and never accepted from, so the kernel drops new connection requests and a client waits
/// until its connect timeout.
public final class FullListener {
    /// The port.
    public let port: Int
    private var descriptors: [Int32] = []

    /// Listens with a queue of one and fills it.
    public init() {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        precondition(listener >= 0, "cannot open a socket")
        port = LoopbackPort.bindToFreePort(listener)
        precondition(listen(listener, 0) == 0, "cannot listen on 127.0.0.1:\(port)")
        descriptors.append(listener)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        for _ in 0..<3 {
            let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            precondition(client >= 0, "cannot open a socket")
            _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
            _ = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            descriptors.append(client)
        }
        usleep(100_000)
    }

    deinit {
        descriptors.forEach { close($0) }
    }
}
