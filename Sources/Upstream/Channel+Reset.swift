import NIOCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Darwin
#endif

extension Channel {
    /// Closes the connection with a TCP RST instead of a FIN (SO_LINGER with a zero timeout): a
    /// reset fault of the proxy, a recorded reset of the replay origin. Here because both modules
    /// build on this one.
    public func closeWithReset() async {
        if let socket = self as? SocketOptionProvider {
            _ = try? await socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
        }
        _ = try? await close().get()
    }
}
