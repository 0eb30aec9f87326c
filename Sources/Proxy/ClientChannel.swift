import NIOCore
import NIOHTTP1
import NIOPosix

/// The client side of one connection, as the request handler sees it: write a response head, body
/// chunks and the end, or break the connection on purpose.
struct ClientChannel: Sendable {
    let channel: Channel
    let outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    let requestHead: HTTPRequestHead
    let cors: Bool

    var isHEAD: Bool { requestHead.method == .HEAD }

    func sendHead(_ status: HTTPResponseStatus, headers: HTTPHeaders) async throws {
        var head = HTTPResponseHead(version: requestHead.version, status: status, headers: headers)
        if !requestHead.isKeepAlive { head.headers.replaceOrAdd(name: "connection", value: "close") }
        if cors && !head.headers.contains(name: "access-control-allow-origin") {
            head.headers.add(name: "access-control-allow-origin", value: "*")
            head.headers.add(name: "access-control-expose-headers", value: "*")
        }
        try await outbound.write(.head(head))
    }

    func sendBody(_ bytes: some Collection<UInt8>) async throws {
        guard !isHEAD, !bytes.isEmpty else { return }
        try await outbound.write(.body(.byteBuffer(channel.allocator.buffer(bytes: bytes))))
    }

    /// Waits until what was written so far has been handed to the socket.
    func flush() async throws {
        try await channel.eventLoop.submit {}.get()
    }

    func sendEnd() async throws {
        try await outbound.write(.end(nil))
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
        try await sendBody(body)
        try await sendEnd()
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
        if let socket = channel as? SocketOptionProvider {
            _ = try? await socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
        }
        _ = try? await channel.close().get()
    }

    /// Closes the connection after what was written so far has been flushed.
    func close() async {
        _ = try? await channel.close().get()
    }
}
