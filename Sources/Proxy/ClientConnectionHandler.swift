import NIOCore
import NIOHTTP1

/// One client connection. Each complete request becomes a task on the connection's event loop
/// that runs `ProxyHandler.handle`; the connection stays open for the next request, or closes when
/// the response, the client or a shutdown says so. A client that disconnects cancels the request
/// in progress, and with it the upstream transfer and any fault timer.
///
/// Event-loop confined, like every NIO handler. The request task runs on the same loop, so its
/// writes reach the socket without a thread hop.
final class ClientConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let handler: ProxyHandler
    private let registry: ConnectionRegistry
    private let cors: Bool
    private let executor: EventLoopTaskExecutor
    private let timeouts: ClientTimeoutHandler
    private let writability = WritabilityGate()
    private var registration: Int?
    private var head: HTTPRequestHead?
    /// Pipelined requests read while an earlier one is being answered, in order.
    private var waiting: [HTTPRequestHead] = []
    /// More queued requests than this closes the connection: no client needs it, and the queue
    /// must stay bounded.
    static let maxPipelined = 32
    private var current: Task<Void, Never>?

    init(handler: ProxyHandler, registry: ConnectionRegistry, cors: Bool, timeouts: ClientTimeoutHandler, eventLoop: EventLoop) {
        self.handler = handler
        self.timeouts = timeouts
        self.registry = registry
        self.cors = cors
        self.executor = EventLoopTaskExecutor(eventLoop)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        registration = registry.register(context.channel)
        if registration == nil { context.close(promise: nil) }  // over the connection limit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
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
        timeouts.requestStarted()
        let client = ClientChannel(channel: context.channel, writability: writability, requestHead: requestHead, cors: cors)
        let handler = self.handler
        let connection = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        current = Task(executorPreference: executor) {
            let disposition = await handler.handle(client)
            client.channel.eventLoop.execute {
                let (this, context) = connection.value
                this.finished(disposition == .keepAlive && requestHead.isKeepAlive, context: context)
            }
        }
    }

    private func finished(_ keepAlive: Bool, context: ChannelHandlerContext) {
        current = nil
        timeouts.responseFinished()
        guard let registration, registry.markIdle(registration), keepAlive, context.channel.isActive else {
            waiting = []
            context.close(promise: nil)
            return
        }
        if !waiting.isEmpty {
            start(waiting.removeFirst(), context: context)
        }
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
        // A malformed request has already been answered with 400 by NIO's error handler.
        context.close(promise: nil)
    }
}
