import NIOCore
import NIOHTTP1

/// On an HTTP/2 stream, turns `ClientResponsePart`s into the HTTP/1-style parts NIO's
/// `HTTP2FramePayloadToHTTP1ServerCodec` makes frames of: the head's fields read back from its bytes
/// (the stream's framing is HTTP/2's own: no chunks).
final class HTTP2ResponseParts: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = ClientResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part: HTTPServerResponsePart = switch unwrapOutboundIn(data) {
        case .head(let head): .head(head.httpHead)
        case .body(let body): .body(.byteBuffer(body))
        case .end: .end(nil)
        }
        context.write(wrapOutboundOut(part), promise: promise)
    }
}
