import Glibc

/// A loopback listening socket that never accepts, with its accept queue filled so that
/// further connection attempts hang in SYN_SENT: a way to provoke a connect timeout locally.
final class StalledListener {
    let port: Int
    private var descriptors: [Int32] = []

    init?() {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { return nil }
        descriptors.append(listener)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 0) == 0 && getsockname(listener, pointer, &length) == 0
            }
        }
        guard bound else { return nil }
        port = Int(UInt16(bigEndian: address.sin_port))
        // Fill the accept queue (backlog 0 still admits one or two) with connections nobody accepts.
        for _ in 0..<4 {
            let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard client >= 0 else { continue }
            descriptors.append(client)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, length) }
            }
        }
    }

    deinit {
        for descriptor in descriptors { close(descriptor) }
    }
}
