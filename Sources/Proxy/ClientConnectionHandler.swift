import NIOCore
import NIOHTTP1
import Upstream

/// One client connection. Each complete request becomes a task on the connection's event loop
/// that runs `ProxyHandler.handle`; the connection stays open for the next request, or closes when
/// the response, the client or a shutdown says so. A client that disconnects cancels the request
/// in progress, and with it the upstream transfer and any fault timer.
///
/// Event-loop confined, like every NIO handler. The request task runs on the same loop, so its
/// writes reach the socket without a thread hop.
final class ClientConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = ClientResponsePart

    private let setup: ConnectionSetup
    private var handler: ProxyHandler { setup.handler }
    private var registry: ConnectionRegistry { setup.registry }
    private let way: ClientWay
    private let executor: EventLoopTaskExecutor
    /// The connection's timeouts; nil on an HTTP/2 stream (the connection's own framing applies).
    private let timeouts: ClientTimeoutHandler?
    private let writability = WritabilityGate()
    private var registration: Int?
    private var clientAddress: String?
    private var head: HTTPRequestHead?
    /// Pipelined requests read while an earlier one is being answered, in order.
    private var waiting: [HTTPRequestHead] = []
    /// More queued requests than this closes the connection: no client needs it, and the queue
    /// must stay bounded.
    static let maxPipelined = 32
    private var current: Task<Void, Never>?
    /// A later request cannot be answered (the decoder failed on it: 400; its head is over the
    /// size limit: 431): it gets that status once the earlier ones are answered, then the
    /// connection ends.
    private var refusal: HTTPResponseStatus?

    init(setup: ConnectionSetup, way: ClientWay, timeouts: ClientTimeoutHandler?, eventLoop: EventLoop) {
        self.setup = setup
        self.way = way
        self.timeouts = timeouts
        self.executor = EventLoopTaskExecutor(eventLoop)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        registration = registry.register(context.channel)
        if registration == nil { context.close(promise: nil) }  // over the connection limit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard refusal == nil else { return }
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            // The timeouts handler measures a head that starts while the connection is idle; one
            // pipelined behind another was read with it, so its size is checked here.
            if let timeouts, Self.size(of: requestHead) > timeouts.maxHeadBytes {
                refuse(.requestHeaderFieldsTooLarge, context: context)
                return
            }
            head = requestHead
        case .body:
            break  // GET and HEAD carry no body; anything else is refused without reading it.
        case .end:
            guard let requestHead = head else { return }
            head = nil
            if current == nil {
                start(requestHead, context: context)
            } else if waiting.count < Self.maxPipelined {
                waiting.append(requestHead)
            } else {
                context.close(promise: nil)
            }
        }
    }

    private func start(_ requestHead: HTTPRequestHead, context: ChannelHandlerContext) {
        guard let registration, registry.markBusy(registration) else {
            context.close(promise: nil)
            return
        }
        timeouts?.requestStarted()
        let firstOnConnection = clientAddress == nil
        let address = clientAddress ?? RecordValues.address(context.channel.remoteAddress)
        clientAddress = address
        let client = ClientChannel(
            channel: context.channel, writability: writability, requestHead: requestHead, cors: setup.cors, clientAddress: address,
            way: way, firstOnConnection: firstOnConnection)
        let handler = self.handler
        let connection = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        current = Task(executorPreference: executor) {
            let disposition = await handler.handle(client)
            // The task runs on the connection's loop (its executor): the connection goes on from
            // here, without another turn of the loop.
            let loop = client.channel.eventLoop
            let keepAlive = requestHead.isKeepAlive
            if loop.inEventLoop {
                requestEnded(disposition, keepAlive: keepAlive, connection)
            } else {
                loop.execute { requestEnded(disposition, keepAlive: keepAlive, connection) }
            }
        }
    }

    fileprivate func switched(_ plan: ConnectionSetup.Switch, context: ChannelHandlerContext) {
        current = nil
        setup.switchConnection(plan, context: context)
    }

    fileprivate func finished(_ keepAlive: Bool, context: ChannelHandlerContext) {
        current = nil
        timeouts?.responseFinished()
        guard let registration, registry.markIdle(registration), keepAlive, context.channel.isActive else {
            waiting = []
            closeAfterResponse(context)
            return
        }
        if !waiting.isEmpty {
            start(waiting.removeFirst(), context: context)
        } else if let refusal {
            refuse(with: refusal, context: context)
        }
    }

    /// Marks the request being read as refused: answered with `status` after the ones before it.
    private func refuse(_ status: HTTPResponseStatus, context: ChannelHandlerContext) {
        refusal = status
        head = nil
        if current == nil { refuse(with: status, context: context) }
    }

    /// 400 for a request the decoder could not read, 431 for a pipelined head over the limit, then
    /// the end of the connection (nothing after it can be framed). No body: the request might have
    /// been a HEAD.
    private func refuse(with status: HTTPResponseStatus, context: ChannelHandlerContext) {
        var fields = ResponseFields()
        fields.add(name: "content-length", value: "0")
        fields.add(name: "connection", value: "close")
        if setup.cors { fields.add(name: "access-control-allow-origin", value: "*") }
        context.write(wrapOutboundOut(.head(fields.head(status: status, version: .http1_1, chunked: false))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end)).assumeIsolated().whenComplete { [self] _ in
            closeAfterResponse(context)
        }
    }

    /// A lingering close on a connection (see `ClientTimeoutHandler`); an HTTP/2 stream just ends.
    private func closeAfterResponse(_ context: ChannelHandlerContext) {
        if let timeouts { timeouts.closeAfterResponse() } else { context.close(promise: nil) }
    }

    /// Removed when a CONNECT turns the connection into a tunnel or an intercepted TLS connection:
    /// what comes next is registered by its own handlers.
    func handlerRemoved(context: ChannelHandlerContext) {
        if let registration { registry.unregister(registration) }
        registration = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        current?.cancel()
        writability.close()
        if let registration { registry.unregister(registration) }
        registration = nil
        context.fireChannelInactive()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        writability.set(context.channel.isWritable)
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // Whatever the decoder threw (a malformed request, data after `Connection: close`): the
        // requests it read before are still answered. A broken socket ends in channelInactive anyway.
        // The decoder may report again on later reads: the 400 is already on its way.
        guard refusal == nil else { return }
        // Requests read before the bad one are answered first, in order; then the 400.
        refuse(.badRequest, context: context)
    }

    /// A request head's size on the wire, as the decoder read it (request line, header lines, the
    /// empty line).
    static func size(of head: HTTPRequestHead) -> Int {
        // "METHOD URI HTTP/1.1\r\n", "name: value\r\n" per field, "\r\n": counted, not built.
        head.headers.reduce(head.method.rawValue.utf8.count + head.uri.utf8.count + 14) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
    }
}

/// A request's task has ended: the connection goes on (the next request, a switch after a
/// `CONNECT`) or closes. On the connection's loop.
private func requestEnded(
    _ disposition: ProxyHandler.Disposition, keepAlive: Bool, _ connection: NIOLoopBound<(ClientConnectionHandler, ChannelHandlerContext)>
) {
    let (handler, context) = connection.value
    if case .switchConnection(let plan) = disposition {
        handler.switched(plan, context: context)
        return
    }
    handler.finished(disposition.isKeepAlive && keepAlive, context: context)
}
