import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// A small HTTP/1.1 server (SwiftNIO) hosting a `DemoOrigin`: keep-alive, GET and HEAD,
/// single-range requests. Runs on NIO's shared event loop group.
public final class DemoOriginServer: Sendable {
    private let channel: any Channel
    public let host: String
    public let port: Int

    /// `http://host:port`, with IPv6 literals in brackets.
    public var baseURL: String {
        host.contains(":") ? "http://[\(host)]:\(port)" : "http://\(host):\(port)"
    }

    private init(channel: any Channel, host: String, port: Int) {
        self.channel = channel
        self.host = host
        self.port = port
    }

    /// Binds `host:port` (port 0 picks a free one) and starts serving; over HTTPS (HTTP/1.1) with `tls`,
    /// as a CDN would (tests of the forward proxy, `hlschaos demo --origin-tls`).
    public static func start(origin: DemoOrigin, host: String = "127.0.0.1", port: Int = 0, tls: NIOSSLContext? = nil) async throws -> DemoOriginServer {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(DemoHTTPHandler(origin: origin))
                }
            }
            .bind(host: host, port: port)
            .get()
        let boundPort = channel.localAddress?.port ?? port
        return DemoOriginServer(channel: channel, host: host, port: boundPort)
    }

    /// Stops accepting connections. Open keep-alive connections end when their clients close them.
    /// A second call does nothing.
    public func shutdown() async throws {
        do {
            try await channel.close()
        } catch ChannelError.alreadyClosed {}
    }
}

final class DemoHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let origin: DemoOrigin
    private var requestHead: HTTPRequestHead?
    /// The next attempt at a held (LL blocking) request. NIO's HTTP pipeline handler holds
    /// back later pipelined requests until this one's response has ended, so there is at most one.
    private var heldRequest: Scheduled<Void>?

    init(origin: DemoOrigin) {
        self.origin = origin
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            requestHead = head
        case .body:
            break
        case .end:
            guard let head = requestHead else { return }
            requestHead = nil
            respond(to: head, context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        heldRequest?.cancel()
        heldRequest = nil
        context.fireChannelInactive()
    }

    /// A broken connection only concerns this client: drop it.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let answer: DemoResponse
        switch origin.answer(method: head.method.rawValue, path: head.uri, headers: head.headers.map { ($0.name, $0.value) }) {
        case .response(let response):
            answer = response
        case .retry(let delay):
            // Asked again on this event loop when the part is due; no thread waits meanwhile.
            let nanoseconds = Int64((max(0, delay) * 1e9).rounded(.up)) + 1_000_000
            heldRequest = context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(nanoseconds)) {
                self.heldRequest = nil
                self.respond(to: head, context: context)
            }
            return
        }
        var headers = HTTPHeaders(answer.headers)
        // Browser players on another origin (hls.js test pages) may read the demo directly too.
        headers.add(name: "access-control-allow-origin", value: "*")
        let keepAlive = head.isKeepAlive
        if !keepAlive {
            headers.replaceOrAdd(name: "connection", value: "close")
        }
        let responseHead = HTTPResponseHead(version: head.version, status: HTTPResponseStatus(statusCode: answer.status),
                                            headers: headers)
        context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
        if !answer.body.isEmpty {
            var buffer = context.channel.allocator.buffer(capacity: answer.body.count)
            buffer.writeBytes(answer.body)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            let channel = context.channel
            written.whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
