import Foundation
import NIOCore
import NIOHTTP1

/// Serves one connection of a `TestOrigin`: looks the route up, writes the canned response and
/// reports whether each response completed or was cut short by the client going away.
final class OriginHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private struct Stream {
        var offset: Int
        var remaining: Int
        let chunk: Int
        let delay: Duration?
        let responseID: Int
        let keepAlive: Bool
    }

    private let origin: TestOrigin
    private var requestHead: HTTPRequestHead?
    private var lastResponseID = 0
    /// The response being written; cleared when it completes or is counted as aborted.
    private var inProgressID: Int?
    private var isActive = true
    private var stream: Stream?
    private var pumping = false

    init(origin: TestOrigin) {
        self.origin = origin
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case let .head(head):
            requestHead = head
        case .body:
            break
        case .end:
            guard let head = requestHead else { return }
            requestHead = nil
            let logged = TestOrigin.LoggedRequest(
                method: head.method.rawValue,
                uri: head.uri,
                headers: head.headers.map { (name: $0.name, value: $0.value) },
                remotePort: context.remoteAddress?.port ?? 0
            )
            lastResponseID += 1
            inProgressID = lastResponseID
            let response = origin.responseFor(logged)
                ?? .bytes(status: 404, headers: [("Content-Type", "text/plain")], body: Array("no route for \(logged.path)\n".utf8))
            respond(response, to: head, id: lastResponseID, context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        isActive = false
        stream = nil
        if inProgressID != nil {
            inProgressID = nil
            origin.countAborted()
        }
        context.fireChannelInactive()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, let stream, stream.delay == nil { pump(context: context) }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    // MARK: responses

    private func respond(_ response: TestOrigin.Response, to head: HTTPRequestHead, id: Int, context: ChannelHandlerContext) {
        switch response {
        case let .bytes(status, headers, body):
            sendBody(status: status, headers: headers, body: body, honourRange: status == 200, to: head, id: id, context: context)
        case let .file(path, contentType):
            if let data = FileManager.default.contents(atPath: path) {
                sendBody(status: 200, headers: [("Content-Type", contentType)], body: [UInt8](data), honourRange: true, to: head, id: id, context: context)
            } else {
                sendBody(status: 404, headers: [], body: Array("no file \(path)\n".utf8), honourRange: false, to: head, id: id, context: context)
            }
        case let .generated(size, chunk, delay):
            sendGenerated(size: max(size, 0), chunk: max(chunk, 1), delay: delay, to: head, id: id, context: context)
        case let .delayedHeaders(delay, then):
            context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(delay)) { [self] in
                guard isActive else { return }
                respond(then, to: head, id: id, context: context)
            }
        case let .redirect(status, location):
            sendBody(status: status, headers: [("Location", location)], body: [], honourRange: false, to: head, id: id, context: context)
        case .closeImmediately:
            inProgressID = nil
            context.close(promise: nil)
        case let .raw(bytes):
            // Written below the HTTP encoder, straight to the socket.
            inProgressID = nil
            guard let encoder = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self) else {
                context.close(promise: nil)
                return
            }
            encoder.writeAndFlush(NIOAny(context.channel.allocator.buffer(bytes: bytes))).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        case let .truncated(size, after):
            writeHead(status: 200, headers: [("Content-Type", "application/octet-stream")], contentLength: max(size, 0), to: head, context: context)
            var buffer = context.channel.allocator.buffer(capacity: max(min(after, size), 0))
            buffer.writeBytes(patternBytes(offset: 0, count: min(after, size)))
            inProgressID = nil
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer)))).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        case let .gzip(body, contentType):
            let acceptsGzip = head.headers[canonicalForm: "Accept-Encoding"].contains { $0.lowercased().hasPrefix("gzip") }
            var headers = [("Content-Type", contentType), ("Vary", "Accept-Encoding")]
            if acceptsGzip { headers.append(("Content-Encoding", "gzip")) }
            sendBody(status: 200, headers: headers, body: acceptsGzip ? Gzip.encode(body) : body, honourRange: false, to: head, id: id, context: context)
        }
    }

    private func sendBody(
        status: Int, headers: [(String, String)], body: [UInt8], honourRange: Bool,
        to head: HTTPRequestHead, id: Int, context: ChannelHandlerContext
    ) {
        var status = status
        var headers = headers
        var slice = body[...]
        if honourRange {
            headers.append(("Accept-Ranges", "bytes"))
            switch ByteRange.resolve(head.headers.first(name: "Range"), length: body.count) {
            case .full:
                break
            case let .partial(range):
                status = 206
                headers.append(("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound)/\(body.count)"))
                slice = body[range]
            case .unsatisfiable:
                status = 416
                headers.append(("Content-Range", "bytes */\(body.count)"))
                slice = []
            }
        }
        writeHead(status: status, headers: headers, contentLength: slice.count, to: head, context: context)
        if head.method != .HEAD, !slice.isEmpty {
            var buffer = context.channel.allocator.buffer(capacity: slice.count)
            buffer.writeBytes(slice)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        writeEnd(id: id, keepAlive: head.isKeepAlive, context: context)
    }

    private func sendGenerated(size: Int, chunk: Int, delay: Duration?, to head: HTTPRequestHead, id: Int, context: ChannelHandlerContext) {
        var status = 200
        var headers = [("Content-Type", "application/octet-stream"), ("Accept-Ranges", "bytes")]
        var start = 0
        var count = size
        switch ByteRange.resolve(head.headers.first(name: "Range"), length: size) {
        case .full:
            break
        case let .partial(range):
            status = 206
            headers.append(("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"))
            start = range.lowerBound
            count = range.count
        case .unsatisfiable:
            sendBody(status: 416, headers: [("Content-Range", "bytes */\(size)")], body: [], honourRange: false, to: head, id: id, context: context)
            return
        }
        writeHead(status: status, headers: headers, contentLength: count, to: head, context: context)
        if head.method == .HEAD || count == 0 {
            writeEnd(id: id, keepAlive: head.isKeepAlive, context: context)
            return
        }
        context.flush()
        stream = Stream(offset: start, remaining: count, chunk: chunk, delay: delay, responseID: id, keepAlive: head.isKeepAlive)
        pump(context: context)
    }

    /// Writes the generated body: as fast as the socket takes it, or one chunk per delay.
    /// Re-entrant calls (flush can fire writability changes synchronously) are ignored.
    private func pump(context: ChannelHandlerContext) {
        guard isActive, !pumping, var current = stream else { return }
        pumping = true
        defer { pumping = false }
        repeat {
            let count = min(current.chunk, current.remaining)
            var buffer = context.channel.allocator.buffer(capacity: count)
            buffer.writeBytes(patternBytes(offset: current.offset, count: count))
            current.offset += count
            current.remaining -= count
            stream = current
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        } while current.delay == nil && current.remaining > 0 && context.channel.isWritable
        if current.remaining == 0 {
            stream = nil
            writeEnd(id: current.responseID, keepAlive: current.keepAlive, context: context)
            return
        }
        context.flush()
        if current.delay == nil && !context.channel.isWritable { origin.countHeldBack() }
        if let delay = current.delay {
            context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(delay)) { [self] in
                pump(context: context)
            }
        } else if context.channel.isWritable {
            // Became writable again during the flush while we ignored the notification.
            context.eventLoop.assumeIsolated().execute { [self] in pump(context: context) }
        }
    }

    private func writeHead(status: Int, headers: [(String, String)], contentLength: Int, to head: HTTPRequestHead, context: ChannelHandlerContext) {
        var httpHeaders = HTTPHeaders(headers)
        httpHeaders.replaceOrAdd(name: "Content-Length", value: String(contentLength))
        if !head.isKeepAlive { httpHeaders.replaceOrAdd(name: "Connection", value: "close") }
        let responseHead = HTTPResponseHead(version: head.version, status: HTTPResponseStatus(statusCode: status), headers: httpHeaders)
        context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
    }

    private func writeEnd(id: Int, keepAlive: Bool, context: ChannelHandlerContext) {
        let promise = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: promise)
        promise.futureResult.assumeIsolated().whenComplete { [self] result in
            guard inProgressID == id else { return }
            inProgressID = nil
            switch result {
            case .success:
                origin.countCompleted()
                if !keepAlive { context.close(promise: nil) }
            case .failure:
                origin.countAborted()
                context.close(promise: nil)
            }
        }
    }
}
