import NIOCore
import NIOHTTP1
import NIOPosix
import Records
import Upstream

/// The client side of one request, as the request handler sees it: write a response head, body
/// chunks and the end, or break the connection on purpose; and the request's state
/// (`RequestStateMachine`), which every write reports to.
///
/// The response head is held back and written together with the first body bytes (or the end), and
/// a last chunk goes out with the end: fewer writes and flushes, one syscall for a small response.
/// One per request, touched only by the task answering it, in order.
final class ClientChannel: @unchecked Sendable {
    let channel: Channel
    let requestHead: HTTPRequestHead
    let cors: Bool
    private let writability: WritabilityGate
    /// The client's "address:port", formatted once per connection (records carry it).
    let clientAddress: String
    /// How this connection's requests name what they want (reverse path, forward, intercepted).
    let way: ClientWay

    /// The request's one state: what it is, what was sent, how it ended.
    var request: RequestStateMachine
    /// The head of the response, until the first body bytes or the end go with it.
    private var heldHead: ResponseHead?
    private(set) var closesAfterResponse = false
    /// The last write of a response after which the connection closes: the close waits for it.
    private var lastWrite: EventLoopFuture<Void>?
    /// The request is the first on its connection: on a link, its head pays the set-up round trip.
    let firstOnConnection: Bool
    /// The session's link, once the session is known; asked before every write while it shapes.
    private(set) var link: SessionLink?
    private var flow: SessionLink.Flow?

    init(channel: Channel, writability: WritabilityGate, requestHead: HTTPRequestHead, cors: Bool, clientAddress: String, way: ClientWay,
         firstOnConnection: Bool = false) {
        self.channel = channel
        self.firstOnConnection = firstOnConnection
        self.way = way
        self.clientAddress = clientAddress
        self.writability = writability
        self.requestHead = requestHead
        self.cors = cors
        self.request = RequestStateMachine()
    }

    /// Returns once the response's last bytes are in the socket (when the connection closes after
    /// it: closing earlier would drop what NIO still buffers, and a slow client would get a cut body).
    func waitUntilWritten() async {
        if let lastWrite { _ = try? await lastWrite.get() }
    }

    /// The connection ends after this response (`Connection: close` is sent with it).
    func closeAfterResponse() { closesAfterResponse = true }

    /// The response goes over the session's link (`SessionLink`): its writes wait for their turn.
    func travel(on link: SessionLink) { self.link = link }

    /// The response is over: it leaves the link, and the request learns what the link did to it.
    func leaveLink() {
        guard let flow, let link else { return }
        self.flow = nil
        if let account = link.close(flow) { request.linked(account) }
    }

    /// Writes and flushes the held-back head, `body` and the end when `end`, then waits while the
    /// client is behind. (A body and an end, not a list of parts: this runs for every write, and a
    /// list would be an allocation each time.)
    private func write(body: ByteBuffer?, end: Bool) async throws {
        if let link, flow != nil || link.isShaping {
            try await writeOnLink(body: body, end: end, link)
            return
        }
        let head = heldHead
        heldHead = nil
        try await send(head: head, body: body, end: end)
    }

    /// Writes as the link lets the response through: the head after the link's latency, the body
    /// in the grants the scheduler hands out, waiting in between.
    private func writeOnLink(body: ByteBuffer?, end: Bool, _ link: SessionLink) async throws {
        var head: ResponseHead?
        if let held = heldHead {
            heldHead = nil
            if flow == nil {
                switch link.open(newConnection: firstOnConnection) {
                case .none:  // the link is down and resets new requests
                    request.end(.reset)
                    await reset()
                    throw ChannelError.ioOnClosedChannel
                case .some(nil):
                    break
                case .some(let opened?):
                    flow = opened.flow
                    try await link.wait(opened.flow, until: opened.headAt, on: channel.eventLoop)
                }
            }
            head = held
        } else if flow == nil, case .some(let opened?) = link.open(newConnection: false) {
            flow = opened.flow  // a body in flight when the link was set: shaped from now on
        }
        guard let flow, var buffer = body, buffer.readableBytes > 0 else { return try await send(head: head, body: body, end: end) }
        while true {
            let grant = link.ask(flow, waiting: buffer.readableBytes)
            let slice = grant.bytes > 0 ? buffer.readSlice(length: grant.bytes) : nil
            if buffer.readableBytes == 0 { return try await send(head: head, body: slice, end: end) }
            try await send(head: head, body: slice, end: false)
            head = nil
            try await link.wait(flow, until: grant.askAgainAt ?? link.now + .milliseconds(10), on: channel.eventLoop)
        }
    }

    /// Writes and flushes `head`, `body` and the end, those there are, then waits while the client
    /// is behind.
    private func send(head: ResponseHead?, body: ByteBuffer?, end: Bool) async throws {
        let body = body?.readableBytes == 0 ? nil : body
        let last: ClientResponsePart
        if end {
            last = .end
        } else if let body {
            last = .body(body)
        } else if let head {
            last = .head(head)
        } else {
            return
        }
        guard channel.isActive else { throw ChannelError.ioOnClosedChannel }
        if let head, body != nil || end { channel.write(ClientResponsePart.head(head), promise: nil) }
        if let body, end { channel.write(ClientResponsePart.body(body), promise: nil) }
        if !requestHead.isKeepAlive || closesAfterResponse {
            lastWrite = channel.writeAndFlush(last)
        } else {
            channel.writeAndFlush(last, promise: nil)
        }
        if !channel.isWritable { try await writability.waitUntilWritable() }
    }

    var isHEAD: Bool { requestHead.method == .HEAD }

    /// The response head, framed here. `fields` are taken over: the head is written from their buffer.
    func sendHead(_ status: HTTPResponseStatus, fields: consuming ResponseFields) async throws {
        try request.headSent(status, fields: fields)
        let chunked = Self.frame(&fields, status: status, request: requestHead)
        if !requestHead.isKeepAlive || closesAfterResponse { fields.replaceOrAdd(name: "connection", value: "close") }
        if cors && !fields.contains(.accessControlAllowOrigin) {
            fields.add(name: "access-control-allow-origin", value: "*")
            fields.add(name: "access-control-expose-headers", value: "*")
        }
        if !request.captures.isEmpty {
            let list = fields.list
            for capture in request.captures { capture.head(list) }
        }
        heldHead = fields.head(status: status, version: requestHead.version, chunked: chunked && !isHEAD)
    }

    /// The response head from NIO's header type (the proxy's own answers).
    func sendHead(_ status: HTTPResponseStatus, headers: HTTPHeaders) async throws {
        try await sendHead(status, fields: ResponseFields(headers))
    }

    /// How the client finds the end of the body (RFC 9112 §6): none for a response that has no body
    /// (to a CONNECT, a 1xx, 204 or 304), else its `Content-Length`, else chunks on HTTP/1.1 (on
    /// HTTP/1.0 the close ends it, and on HTTP/2 the stream). A HEAD's head says what a GET's would.
    /// Returns true when the body goes in chunks.
    static func frame(_ fields: inout ResponseFields, status: HTTPResponseStatus, request: HTTPRequestHead) -> Bool {
        let code = status.code
        if request.method == .CONNECT || code < 200 || code == 204 || code == 304 {
            fields.remove("content-length")
            fields.remove("transfer-encoding")
            return false
        }
        guard !fields.contains(.contentLength), request.version.major == 1, request.version.minor >= 1 else { return false }
        fields.replaceOrAdd(name: "transfer-encoding", value: "chunked")
        return true
    }

    /// Body bytes; with `end`, the response is complete after them.
    func sendBody(_ bytes: some Collection<UInt8>, end: Bool = false) async throws {
        try await sendBody(isHEAD ? ByteBuffer() : channel.allocator.buffer(bytes: bytes), end: end)
    }

    /// Body bytes already in a buffer (what the upstream delivers): written without a copy.
    func sendBody(_ buffer: ByteBuffer, end: Bool = false) async throws {
        guard !isHEAD, buffer.readableBytes > 0 else { return try await write(body: nil, end: end) }
        request.bodySent(buffer.readableBytes)
        for capture in request.captures { buffer.withUnsafeReadableBytes { capture.body.append($0) } }
        try await write(body: buffer, end: end)
    }

    /// Waits until what was written so far has been handed to the socket.
    func flush() async throws {
        try await write(body: nil, end: false)
        try await channel.eventLoop.submit {}.get()
    }

    func sendEnd() async throws {
        try await write(body: nil, end: true)
    }

    /// A complete response with exactly these body bytes (text/plain unless `headers` say otherwise).
    func sendBody(_ body: [UInt8], status: HTTPResponseStatus, headers extra: HTTPHeaders) async throws {
        var headers = extra
        if !headers.contains(name: "content-type") {
            headers.add(name: "content-type", value: "text/plain; charset=utf-8")
        }
        headers.replaceOrAdd(name: "content-length", value: String(body.count))
        headers.replaceOrAdd(name: "cache-control", value: "no-store")
        try await sendHead(status, headers: headers)
        try await sendBody(body, end: true)
    }

    /// Answers a CORS preflight: any origin may GET and HEAD with any request header.
    func sendPreflight() async throws {
        var headers: HTTPHeaders = [
            "access-control-allow-methods": "GET, HEAD, OPTIONS",
            "access-control-max-age": "600",
            "content-length": "0",
        ]
        if let asked = requestHead.headers.first(name: "access-control-request-headers") {
            headers.add(name: "access-control-allow-headers", value: asked)
        }
        try await sendHead(.noContent, headers: headers)
        try await sendEnd()
    }

    /// Closes the connection with a TCP RST instead of a FIN (SO_LINGER with a zero timeout).
    func reset() async {
        await channel.closeWithReset()
    }

    /// Closes the connection after what was written so far has been flushed.
    func close() async {
        _ = try? await channel.close().get()
    }
}
