import NIOCore

/// Writes `ClientResponsePart`s to an HTTP/1 connection: the head's bytes as they are, the body in
/// chunks when the head says so (RFC 9112 §7.1), and the last chunk at the end. Takes the place of
/// NIO's `HTTPResponseEncoder`, which would encode a head from a list of strings.
final class HTTP1ResponseWriter: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = ClientResponsePart
    typealias OutboundOut = IOData

    private var chunked = false

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            chunked = head.chunked
            context.write(wrapOutboundOut(.byteBuffer(head.bytes)), promise: promise)
        case .body(let body):
            guard chunked, body.readableBytes > 0 else {
                context.write(wrapOutboundOut(.byteBuffer(body)), promise: promise)
                return
            }
            var size = context.channel.allocator.buffer(capacity: 18)
            size.writeString(String(body.readableBytes, radix: 16))
            size.writeStaticString("\r\n")
            context.write(wrapOutboundOut(.byteBuffer(size)), promise: nil)
            context.write(wrapOutboundOut(.byteBuffer(body)), promise: nil)
            context.write(wrapOutboundOut(.byteBuffer(Self.lineEnd)), promise: promise)
        case .end:
            if chunked {
                chunked = false
                context.write(wrapOutboundOut(.byteBuffer(Self.lastChunk)), promise: promise)
            } else if let promise {
                // Nothing to write, but the promise completes in order with the writes before it.
                context.write(wrapOutboundOut(.byteBuffer(ByteBuffer())), promise: promise)
            }
        }
    }

    private static let lineEnd = ByteBuffer(string: "\r\n")
    private static let lastChunk = ByteBuffer(string: "0\r\n\r\n")
}
