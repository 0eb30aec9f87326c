import Addressing
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOSSL
import NIOTLS

/// Puts the handlers on every client connection, whichever way it came in: plain HTTP/1.1, TLS
/// with ALPN choosing HTTP/2 or HTTP/1.1 (the HTTPS listener, an intercepted `CONNECT`), and what a
/// `CONNECT` turns its connection into. Each way ends in a `ClientConnectionHandler` answering
/// requests through the one `ProxyHandler`.
final class ConnectionSetup: Sendable {
    let handler: ProxyHandler
    let registry: ConnectionRegistry
    let cors: Bool
    let limits: RequestHeadWatch.Limits
    let tls: TLSContexts?

    init(handler: ProxyHandler, registry: ConnectionRegistry, cors: Bool, limits: RequestHeadWatch.Limits, tls: TLSContexts?) {
        self.handler = handler
        self.registry = registry
        self.cors = cors
        self.limits = limits
        self.tls = tls
    }

    enum Name {
        static let timeouts = "hlschaos.timeouts"
        static let client = "hlschaos.client"
    }

    /// HTTP/1.1 on a connection (after TLS, if any).
    func addHTTP1(to channel: Channel, way: ClientWay) throws {
        let sync = channel.pipeline.syncOperations
        let timeouts = ClientTimeoutHandler(limits: limits)
        try sync.addHandler(timeouts, name: Name.timeouts)
        // Requests are answered one at a time by ClientConnectionHandler, which queues pipelined ones
        // itself (cheaper than NIO's pipelining handler, which re-arms epoll per request) and answers
        // a malformed request itself, after the responses queued before it. The decoder hands on what
        // it read after a CONNECT or an upgrade request as it leaves (`forwardBytes`), so that a TLS
        // handshake sent early is not lost.
        //
        // Responses are framed by `ClientChannel.sendHead` and written as bytes by
        // `HTTP1ResponseWriter` (in place of NIO's encoder, which would encode every head again from
        // strings). Every header they carry is valid already: an origin's are checked by
        // `HeaderPolicy` (a name that is no token or a value with a control character is dropped and
        // logged), the proxy's own are fixed or come from rule files checked when they load.
        try sync.addHandler(HTTP1ResponseWriter())
        try sync.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes)))
        try sync.addHandler(
            ClientConnectionHandler(setup: self, way: way, timeouts: timeouts, eventLoop: channel.eventLoop), name: Name.client)
    }

    /// TLS towards the client, then HTTP/2 or HTTP/1.1 as ALPN decides (HTTP/1.1 without ALPN).
    func addTLS(to channel: Channel, context: NIOSSLContext, way: ClientWay) throws {
        let sync = channel.pipeline.syncOperations
        try sync.addHandler(NIOSSLServerHandler(context: context))
        try sync.addHandler(ApplicationProtocolNegotiationHandler { [self] result, channel in
            channel.eventLoop.makeCompletedFuture {
                if case .negotiated("h2") = result { try self.addHTTP2(to: channel, way: way) } else { try self.addHTTP1(to: channel, way: way) }
            }
        })
    }

    /// HTTP/2: every stream is a child channel carrying HTTP/1-style request and response parts, so a
    /// stream is answered like a request on its own connection. A fault that closes the connection
    /// closes the stream instead (`RST_STREAM`), and a hang holds the stream, not the connection.
    private func addHTTP2(to channel: Channel, way: ClientWay) throws {
        _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
            mode: .server, connectionConfiguration: .init(), streamConfiguration: .init()
        ) { [self] (stream: Channel) in
            stream.eventLoop.makeCompletedFuture {
                let sync = stream.pipeline.syncOperations
                try sync.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
                try sync.addHandler(NIOHTTPResponseHeadersValidator())
                try sync.addHandler(HTTP2ResponseParts())
                try sync.addHandler(ClientConnectionHandler(setup: self, way: way, timeouts: nil, eventLoop: stream.eventLoop))
            }
        }
    }

    /// What a `CONNECT` that was answered 200 turns its connection into.
    enum Switch: Sendable {
        /// Bytes both ways to a connection already made to the target.
        case tunnel(Channel)
        /// TLS terminated with this context (or plain HTTP/1.1, when the client's first byte is not
        /// a TLS handshake), then requests on the target in the identity's session.
        case intercept(NIOSSLContext, ConnectTarget, ForwardAccess.Identity)
    }

    /// Replaces the HTTP/1.1 handlers of `context`'s connection after a `CONNECT`: sends the 200 (raw:
    /// the encoder would frame it as a chunked body), adds the tunnel or TLS handlers, and removes the
    /// decoder last so that bytes the client sent right after its `CONNECT` (even in the same write)
    /// reach the new handlers.
    func switchConnection(_ plan: Switch, context: ChannelHandlerContext) {
        let channel = context.channel
        let pipeline = channel.pipeline
        let sync = pipeline.syncOperations
        do {
            sync.removeHandler(name: Name.timeouts, promise: nil)
            sync.removeHandler(try sync.handler(type: HTTP1ResponseWriter.self), promise: nil)
            channel.writeAndFlush(channel.allocator.buffer(string: "HTTP/1.1 200 Connection Established\r\n\r\n"), promise: nil)
            switch plan {
            case .tunnel(let upstream):
                let (clientSide, upstreamSide) = TunnelGlue.pair()
                try sync.addHandler(clientSide)
                try upstream.pipeline.syncOperations.addHandler(upstreamSide)
            case .intercept(let tls, let target, let identity):
                try sync.addHandler(TunnelProtocolSniffer { [self] channel, startsWithTLS in
                    if startsWithTLS {
                        try addTLS(to: channel, context: tls, way: .intercepted(target, identity, scheme: "https"))
                    } else {
                        try addHTTP1(to: channel, way: .intercepted(target, identity, scheme: "http"))
                    }
                })
            }
            sync.removeHandler(context: context, promise: nil)
            // The decoder hands on what it read after the CONNECT as it leaves (a turn of the loop
            // later), with no read-complete; the tunnel flushes and TLS handshakes on read-complete,
            // so send one then, or those bytes wait for the client's next write, which a client
            // waiting for an answer never makes.
            let removed = channel.eventLoop.makePromise(of: Void.self)
            sync.removeHandler(try sync.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self), promise: removed)
            removed.futureResult.assumeIsolated().whenSuccess { pipeline.fireChannelReadComplete() }
        } catch {
            channel.close(promise: nil)
            if case .tunnel(let upstream) = plan { upstream.close(promise: nil) }
        }
    }
}
