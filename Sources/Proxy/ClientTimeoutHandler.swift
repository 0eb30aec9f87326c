import NIOCore

/// First handler of every client connection, below the HTTP decoder: closes connections that stay
/// idle past the keep-alive timeout or take longer than the request-head timeout to send a head,
/// and answers 431 to a head larger than the limit. Without it, a scanner's half-sent requests
/// would each hold a descriptor forever. `ClientConnectionHandler` tells it when a request starts
/// and ends; while one is answered nothing here applies, so a faulted `hang` lasts as the rule says.
///
/// One timer per connection, re-armed only when it fires early: a keep-alive connection serving
/// many requests does not schedule a task per request.
///
/// Every close that follows a response is a *lingering* close (`closeAfterResponse`): the proxy
/// sends its FIN, then reads and discards what the client still sends, for at most
/// `lingerTimeout`, before it closes the socket. Closing a socket with unread bytes in its receive
/// buffer makes the kernel send a reset, and a reset discards whatever the client had not read
/// yet, so a client that pipelined a request after a `Connection: close` one would lose the end
/// of the response it was reading (found by the HTTP fuzzer).
final class ClientTimeoutHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var watch: RequestHeadWatch
    private var context: ChannelHandlerContext?
    private var timer: Scheduled<Void>?
    private var timerDeadline: NIODeadline?
    private var refusing = false
    /// The response side is shut down; reads are discarded until the client closes or the linger
    /// time is over.
    private var lingering = false
    static let lingerTimeout: TimeAmount = .seconds(2)
    /// The head being read is known to be a GET (its first bytes were read while idle): only then
    /// does a refusal carry a message body (a HEAD must not get one).
    private var refusalMayHaveBody = false

    init(limits: RequestHeadWatch.Limits) {
        self.watch = RequestHeadWatch(limits: limits, now: .now())
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        arm()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refusing, !lingering else { return }
        let bytes = unwrapInboundIn(data)
        if case .idle = watch.state { refusalMayHaveBody = bytes.readableBytesView.starts(with: "GET ".utf8) }
        switch watch.received(bytes, now: .now()) {
        case .fine:
            context.fireChannelRead(data)
            // After the decoder had the bytes: a complete head has usually started its request by
            // now (busy, no deadline), so a keep-alive request does not reschedule the timer.
            arm()
        case .headTooLarge:
            refusing = true
            let limit = watch.limits.maxHeadBytes
            respondAndClose(context, "431 Request Header Fields Too Large",
                "hlschaos: the request head is larger than \(limit) bytes (config \"maxRequestHeadBytes\")")
        }
    }

    // MARK: called by ClientConnectionHandler (same event loop)

    /// Ends the connection once everything written so far is on its way: shuts down the sending
    /// side, discards what the client still sends, closes when it closes or after `lingerTimeout`.
    func closeAfterResponse() {
        guard let context, !lingering else { return }
        lingering = true
        timer?.cancel()
        timer = nil
        timerDeadline = nil
        // The write side may already be shut (or the socket gone): then close outright.
        let channel = context.channel
        context.close(mode: .output).assumeIsolated().whenComplete { result in
            guard case .success = result else { return channel.close(promise: nil) }
            channel.eventLoop.assumeIsolated().scheduleTask(in: Self.lingerTimeout) { channel.close(promise: nil) }
        }
    }

    func requestStarted() {
        watch.requestStarted()
    }

    var maxHeadBytes: Int { watch.limits.maxHeadBytes }

    func responseFinished() {
        watch.responseFinished(now: .now())
        arm()
    }

    // MARK: timer

    private func arm() {
        guard let deadline = watch.deadline, let context else { return }
        // An armed timer that fires earlier re-checks then; one that fires later must move up.
        if let armed = timerDeadline, armed <= deadline { return }
        timer?.cancel()
        timerDeadline = deadline
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [weak self] in self?.fired() }
    }

    private func fired() {
        timer = nil
        timerDeadline = nil
        guard let context, !refusing, !lingering else { return }
        switch watch.expired(now: .now()) {
        case .keepAliveIdle:
            context.close(promise: nil)
        case .requestHead:
            refusing = true
            respondAndClose(context, "408 Request Timeout",
                "hlschaos: the request head did not arrive within \(Self.seconds(watch.limits.requestHeadTimeout)) (config \"requestHeadTimeout\")")
        case nil:
            arm()
        }
    }

    private func respondAndClose(_ context: ChannelHandlerContext, _ status: String, _ message: String) {
        let body = refusalMayHaveBody ? message + "\n" : ""
        let text = "HTTP/1.1 \(status)\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: \(body.utf8.count)\r\nconnection: close\r\n\r\n\(body)"
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: text))).assumeIsolated().whenComplete { [weak self] _ in
            guard let self else { return context.close(promise: nil) }
            self.closeAfterResponse()
        }
    }

    private static func seconds(_ amount: TimeAmount) -> String {
        let ms = amount.nanoseconds / 1_000_000
        return ms % 1000 == 0 ? "\(ms / 1000) s" : "\(ms) ms"
    }
}
