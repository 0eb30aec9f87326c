import NIOCore

/// The first handler of an intercepted `CONNECT` tunnel: reads the client's first byte to tell a
/// TLS handshake (a handshake record starts with 0x16) from plain HTTP, has the matching handlers
/// added behind it, hands them what it read and leaves. A browser sends TLS; `curl --proxytunnel`
/// with an `http://` URL, or an app's HTTP client forced through `CONNECT`, sends plain HTTP.
final class TunnelProtocolSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private static let tlsHandshakeRecord: UInt8 = 0x16
    private let configure: (Channel, _ startsWithTLS: Bool) throws -> Void

    init(configure: @escaping (Channel, _ startsWithTLS: Bool) throws -> Void) {
        self.configure = configure
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = Self.unwrapInboundIn(data)
        guard let first = bytes.getInteger(at: bytes.readerIndex, as: UInt8.self) else { return }
        do {
            try configure(context.channel, first == Self.tlsHandshakeRecord)
        } catch {
            context.close(promise: nil)
            return
        }
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
