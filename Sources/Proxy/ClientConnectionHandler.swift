import NIOCore
import NIOHTTP1
import Upstream

/// One client connection. Its requests are answered one after another by one task on the
/// connection's event loop (the connection's worker, started by its first request), which runs
/// `ProxyHandler.handle` for each; the connection stays open for the next request, or closes when
/// the response, the client or a shutdown says so. A client that disconnects cancels the worker,
/// and with it the request in progress, its upstream transfer and any fault timer.
///
/// One task per connection rather than per request: a task's frames live in memory it takes from
/// malloc in slabs and keeps until it ends, so a task per request allocated and freed about 20 KB
/// in ten slabs for every request; the connection's worker reuses its slabs from one request to
/// the next.
///
/// Event-loop confined, like every NIO handler. The worker runs on the same loop, so its writes
/// reach the socket without a thread hop.
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
    private var registration: ConnectionRegistry.Registration?
    private var clientAddress: String?
    private var head: HTTPRequestHead?
    /// Pipelined requests read while an earlier one is being answered, in order.
    private var waiting: [HTTPRequestHead] = []
    /// More queued requests than this closes the connection: no client needs it, and the queue
    /// must stay bounded.
    static let maxPipelined = 32
    /// The connection's worker, once a request has come.
    private var worker: Task<Void, Never>?
    /// A request is being answered: the registry's flag, set and cleared by `start` and `finished`.
    private var busy: Bool { registration?.isBusy ?? false }
    /// The worker between requests, waiting for the next one (resumed with nil when the connection
    /// ends).
    private var idleWorker: UnsafeContinuation<ClientChannel?, Never>?
    /// The next request, started while the worker was finishing the one before (a pipelined one).
    private var handedOver: ClientChannel?
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
            if !busy {
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
        if let idleWorker {
            self.idleWorker = nil
            idleWorker.resume(returning: client)
        } else if worker != nil {
            handedOver = client  // the worker is finishing the request before: it takes this one next
        } else {
            startWorker(with: client, context: context)
        }
    }

    private func startWorker(with first: ClientChannel, context: ChannelHandlerContext) {
        let handler = self.handler
        let connection = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let loop = context.eventLoop
        worker = Task(executorPreference: executor) {
            var next: ClientChannel? = first
            while let client = next {
                let disposition = await handler.handle(client)
                let keepAlive = client.requestHead.isKeepAlive
                next = await withUnsafeContinuation { continuation in
                    // The worker runs on the connection's loop (its executor): the connection goes
                    // on from here, without another turn of the loop.
                    if loop.inEventLoop {
                        afterRequest(disposition, keepAlive: keepAlive, connection, continuation)
                    } else {
                        loop.execute { afterRequest(disposition, keepAlive: keepAlive, connection, continuation) }
                    }
                }
            }
        }
    }

    /// What the worker does after a request: the next one, now or when it comes, or nothing more
    /// (the connection closes or was switched).
    fileprivate func requestEnded(
        _ disposition: ProxyHandler.Disposition, keepAlive: Bool, context: ChannelHandlerContext,
        _ worker: UnsafeContinuation<ClientChannel?, Never>
    ) {
        if case .switchConnection(let plan) = disposition {
            self.worker = nil
            worker.resume(returning: nil)
            setup.switchConnection(plan, context: context)
            return
        }
        finished(disposition.isKeepAlive && keepAlive, context: context)
        if let next = handedOver {
            handedOver = nil
            worker.resume(returning: next)
        } else if context.channel.isActive {
            idleWorker = worker
        } else {
            self.worker = nil
            worker.resume(returning: nil)
        }
    }

    private func finished(_ keepAlive: Bool, context: ChannelHandlerContext) {
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
        if !busy { refuse(with: status, context: context) }
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
        worker?.cancel()
        worker = nil
        if let idleWorker {
            self.idleWorker = nil
            idleWorker.resume(returning: nil)
        }
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

/// A request has ended: the connection goes on (the next request, a switch after a `CONNECT`) or
/// closes. On the connection's loop.
private func afterRequest(
    _ disposition: ProxyHandler.Disposition, keepAlive: Bool, _ connection: NIOLoopBound<(ClientConnectionHandler, ChannelHandlerContext)>,
    _ worker: UnsafeContinuation<ClientChannel?, Never>
) {
    let (handler, context) = connection.value
    handler.requestEnded(disposition, keepAlive: keepAlive, context: context, worker)
}
