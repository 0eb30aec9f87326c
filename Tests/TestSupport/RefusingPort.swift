#if canImport(Glibc)
import Glibc
#endif

/// A loopback port that refuses connections for as long as this object lives: bound, never
/// listening. Unlike "bind, close, reuse the number", no test running in parallel can take it.
public final class RefusingPort: @unchecked Sendable {
    public let port: Int
    private let fd: Int32

    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw RawHTTPConnection.Failure.connect(errno)
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(fd) }
}
