import NIOCore
import NIOHTTP1
import NIOPosix
import Records
import Upstream

/// The client side of one connection, as the request handler sees it: write a response head, body
/// chunks and the end, or break the connection on purpose.
///
/// The response head is held back and written together with the first body bytes (or the end), and
/// a last chunk goes out with the end: fewer writes and flushes, one syscall for a small response.
struct ClientChannel: Sendable {
    let channel: Channel
    let requestHead: HTTPRequestHead
    let cors: Bool
    private let writability: WritabilityGate
    private let pending = PendingHead()

    /// The client's "address:port", formatted once per connection (records carry it).
    let clientAddress: String
    /// How this connection's requests name what they want (reverse path, forward, intercepted).
    let way: ClientWay

    init(channel: Channel, writability: WritabilityGate, requestHead: HTTPRequestHead, cors: Bool, clientAddress: String, way: ClientWay) {
        self.channel = channel
        self.way = way
        self.clientAddress = clientAddress
        self.writability = writability
        self.requestHead = requestHead
        self.cors = cors
    }

    /// Touched only by the one task answering the request, in order.
    private final class PendingHead: @unchecked Sendable {
        var head: HTTPResponseHead?
        /// A response was begun: a second one to the same request would desynchronise the client.
        var started = false
        var progress = Progress()
        var closeAfter = false
        /// The last write of a response after which the connection closes: the close waits for it.
        var lastWrite: EventLoopFuture<Void>?
        /// Recordings of this request's session: they get the head and every body byte sent.
        var captures: [RequestCapture] = []
    }

    /// Hands the response's head and body bytes to recordings as they are sent.
    func record(into captures: [RequestCapture]) { pending.captures = captures }

    /// What the client has been sent so far (for the request's record).
    struct Progress {
        var status: Int?
        var bodyBytes = 0
        /// The response headers worth keeping in a record.
        var headers: [RequestRecord.Header] = []
    }

    var progress: Progress { pending.progress }

    /// Returns once the response's last bytes are in the socket (when the connection closes after
    /// it: closing earlier would drop what NIO still buffers, and a slow client would get a cut body).
    func waitUntilWritten() async {
        if let last = pending.lastWrite { _ = try? await last.get() }
    }

    /// The connection ends after this response (`Connection: close` is sent with it).
    func closeAfterResponse() { pending.closeAfter = true }
    var closesAfterResponse: Bool { pending.closeAfter }

    /// Response headers a record keeps (what a request log or a HAR viewer shows).
    private static let recordedHeaders = ["content-type", "content-length", "location", "retry-after", "x-hlschaos-fault"]

    /// A second response head for one request. The connection is closed instead: a keep-alive
    /// client would read the extra answer as the response to its next request.
    struct SecondResponse: Error, CustomStringConvertible {
        var uri: String
        var description: String { "a second response to \(uri.prefix(200)) was refused and the connection closed" }
    }

    /// Writes and flushes `parts` (after the held-back head), then waits while the client is behind.
    private func write(_ parts: [HTTPServerResponsePart]) async throws {
        var parts = parts
        if let head = pending.head {
            pending.head = nil
            parts.insert(.head(head), at: 0)
        }
        guard !parts.isEmpty else { return }
        guard channel.isActive else { throw ChannelError.ioOnClosedChannel }
        for part in parts.dropLast() { channel.write(part, promise: nil) }
        if !requestHead.isKeepAlive || pending.closeAfter {
            pending.lastWrite = channel.writeAndFlush(parts[parts.count - 1])
        } else {
            channel.writeAndFlush(parts[parts.count - 1], promise: nil)
        }
        if !channel.isWritable { try await writability.waitUntilWritable() }
    }

    var isHEAD: Bool { requestHead.method == .HEAD }

    func sendHead(_ status: HTTPResponseStatus, headers: HTTPHeaders) async throws {
        guard !pending.started else { throw SecondResponse(uri: requestHead.uri) }
        pending.started = true
        pending.progress.status = Int(status.code)
        pending.progress.headers.reserveCapacity(Self.recordedHeaders.count)
        for name in Self.recordedHeaders {
            if let value = headers.first(name: name) { pending.progress.headers.append(.init(name, value)) }
        }
        var head = HTTPResponseHead(version: requestHead.version, status: status, headers: headers)
        if !requestHead.isKeepAlive || pending.closeAfter { head.headers.replaceOrAdd(name: "connection", value: "close") }
        if cors && !head.headers.contains(name: "access-control-allow-origin") {
            head.headers.add(name: "access-control-allow-origin", value: "*")
            head.headers.add(name: "access-control-expose-headers", value: "*")
        }
        pending.head = head
        if !pending.captures.isEmpty {
            let fields = head.headers.map { ($0.name, $0.value) }
            for capture in pending.captures { capture.head(fields) }
        }
    }

    /// Body bytes; with `end`, the response is complete after them.
    func sendBody(_ bytes: some Collection<UInt8>, end: Bool = false) async throws {
        try await sendBody(isHEAD ? ByteBuffer() : channel.allocator.buffer(bytes: bytes), end: end)
    }

    /// Body bytes already in a buffer (what the upstream delivers): written without a copy.
    func sendBody(_ buffer: ByteBuffer, end: Bool = false) async throws {
        var parts: [HTTPServerResponsePart] = []
        if !isHEAD, buffer.readableBytes > 0 {
            parts.append(.body(.byteBuffer(buffer)))
            pending.progress.bodyBytes += buffer.readableBytes
            for capture in pending.captures { buffer.withUnsafeReadableBytes { capture.body.append($0) } }
        }
        if end { parts.append(.end(nil)) }
        try await write(parts)
    }

    /// Waits until what was written so far has been handed to the socket.
    func flush() async throws {
        try await write([])
        try await channel.eventLoop.submit {}.get()
    }

    func sendEnd() async throws {
        try await write([.end(nil)])
    }

    /// A complete response with a one-line text body (the proxy's own errors and refusals).
    func sendText(_ status: HTTPResponseStatus, _ message: String, headers: HTTPHeaders = [:]) async throws {
        try await sendBody(Array((message + "\n").utf8), status: status, headers: headers)
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

    /// Counts a response the connection's next handlers send (the 200 of a CONNECT) as this request's.
    func markAnswered(_ status: HTTPResponseStatus) {
        pending.started = true
        pending.progress.status = Int(status.code)
    }

    /// Closes the connection after what was written so far has been flushed.
    func close() async {
        _ = try? await channel.close().get()
    }
}
