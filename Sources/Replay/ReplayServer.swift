import BundleFormat
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Upstream

/// The replay origin on the wire: an HTTP/1.1 server (SwiftNIO, keep-alive, pipelining) that sends
/// each `ReplayAnswer` on its recorded schedule.
///
/// Pacing: the head goes out `headAfter` seconds after the request arrived, the body in slices
/// every 50 ms so that its last byte goes at `endAfter`. Answers that took under 20 ms are sent
/// at once. The deadlines are absolute (no drift from slice to slice); a slow reader can only make
/// an answer later, never earlier.
public final class ReplayServer: Sendable {
    public let origin: ReplayOrigin
    public let host: String
    public let port: Int
    private let serverChannel: any Channel
    private let acceptTask: Task<Void, Never>

    /// `http://host:port`, with IPv6 literals in brackets.
    public var baseURL: String {
        host.contains(":") ? "http://[\(host)]:\(port)" : "http://\(host):\(port)"
    }

    /// The time between two body slices of a paced answer.
    static let sliceInterval = 0.05
    /// Answers recorded faster than this are not paced.
    static let pacingThreshold = 0.02

    private init(origin: ReplayOrigin, host: String, port: Int, serverChannel: any Channel, acceptTask: Task<Void, Never>) {
        self.origin = origin
        self.host = host
        self.port = port
        self.serverChannel = serverChannel
        self.acceptTask = acceptTask
    }

    /// Binds `host:port` (port 0 picks a free one) and starts serving.
    public static func start(
        origin: ReplayOrigin, host: String = "127.0.0.1", port: Int = 0, logger: Logger = Logger(label: "hlschaos.replay")
    ) async throws -> ReplayServer {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .bind(host: host, port: port) { child in
                child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(wrappingChannelSynchronously: child)
                }
            }
        let underlying = channel.channel
        let boundPort = underlying.localAddress?.port ?? port
        let task = Task {
            do {
                try await channel.executeThenClose { inbound in
                    try await withThrowingDiscardingTaskGroup { group in
                        for try await connection in inbound {
                            group.addTask(executorPreference: EventLoopTaskExecutor(connection.channel.eventLoop)) {
                                await Self.serve(connection, origin: origin, logger: logger)
                            }
                        }
                    }
                }
            } catch {
                if !(error is CancellationError) { logger.debug("replay origin stopped accepting: \(error)") }
            }
        }
        return ReplayServer(origin: origin, host: host, port: boundPort, serverChannel: underlying, acceptTask: task)
    }

    /// Stops accepting connections and breaks the open ones (held and paced answers included).
    public func shutdown() async {
        acceptTask.cancel()
        try? await serverChannel.close()
        await acceptTask.value
    }

    // MARK: - One connection

    private static func serve(
        _ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, origin: ReplayOrigin, logger: Logger
    ) async {
        let channel = connection.channel
        do {
            try await connection.executeThenClose { inbound, _ in
                var head: HTTPRequestHead?
                for try await part in inbound {
                    switch part {
                    case .head(let received):
                        head = received
                    case .body:
                        continue
                    case .end:
                        guard let request = head else { continue }
                        head = nil
                        let keepOpen = try await respond(to: request, on: channel, origin: origin, logger: logger)
                        if !keepOpen { return }
                    }
                }
            }
        } catch {
            // The client went away, or the server is stopping: nothing to answer.
            logger.trace("replay connection ended: \(error)")
            channel.close(promise: nil)
        }
    }

    /// Sends one answer; false when the connection must end after it.
    private static func respond(
        to request: HTTPRequestHead, on channel: any Channel, origin: ReplayOrigin, logger: Logger
    ) async throws -> Bool {
        let arrived = ContinuousClock.now
        let starting = !origin.hasStarted
        // The answer reads its body from the bundle on disk: off the event loop, which `hlschaos
        // replay` shares with the proxy.
        let requestHeaders = request.headers.map { ($0.name, $0.value) }
        let answer = try await NIOThreadPool.singleton.runIfActive {
            origin.answer(method: request.method.rawValue, target: request.uri, headers: requestHeaders, at: arrived)
        }
        if starting, origin.hasStarted {
            let from = ReplayOptions.describe(seconds: origin.options.from)
            logger.info("replay: the recorded schedule starts now, \(from) into the recording (\(request.method.rawValue) \(request.uri))")
        }
        func at(_ seconds: Double) -> ContinuousClock.Instant { arrived + .milliseconds(Int64((seconds * 1000).rounded())) }

        guard let status = answer.status else {
            // No head was recorded: hold as long as the recording waited, then break off.
            try await Task.sleep(until: at(answer.endAfter), clock: .continuous)
            if answer.ending == .reset { await channel.closeWithReset() } else { try? await channel.close() }
            return false
        }
        var headers = HTTPHeaders(answer.headers)
        let keepAlive = request.isKeepAlive && answer.ending == .complete
        if !keepAlive { headers.replaceOrAdd(name: "connection", value: "close") }
        let head = HTTPResponseHead(version: request.version, status: HTTPResponseStatus(statusCode: status), headers: headers)

        let paced = answer.endAfter >= pacingThreshold
        if paced { try await Task.sleep(until: at(answer.headAfter), clock: .continuous) }
        let body = answer.body
        let span = answer.endAfter - answer.headAfter
        if !paced || body.isEmpty || span < pacingThreshold {
            var last = HTTPServerResponsePart.head(head)
            if !body.isEmpty {
                channel.write(last, promise: nil)
                last = .body(.byteBuffer(ByteBuffer(bytes: body)))
            }
            if answer.ending == .complete {
                channel.write(last, promise: nil)
                try await channel.writeAndFlush(HTTPServerResponsePart.end(nil)).get()
            } else {
                try await channel.writeAndFlush(last).get()
                if paced { try await Task.sleep(until: at(answer.endAfter), clock: .continuous) }
            }
        } else {
            try await channel.writeAndFlush(HTTPServerResponsePart.head(head)).get()
            let slices = max(1, min(body.count, Int((span / sliceInterval).rounded(.up))))
            var sent = 0
            for slice in 1...slices {
                let upTo = slice == slices ? body.count : body.count * slice / slices
                try await Task.sleep(until: at(answer.headAfter + span * Double(slice) / Double(slices)), clock: .continuous)
                guard upTo > sent else { continue }
                let part = HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: body[sent..<upTo])))
                if slice == slices && answer.ending == .complete {
                    channel.write(part, promise: nil)
                } else {
                    try await channel.writeAndFlush(part).get()
                }
                sent = upTo
            }
            if answer.ending == .complete { try await channel.writeAndFlush(HTTPServerResponsePart.end(nil)).get() }
        }
        switch answer.ending {
        case .complete:
            if !keepAlive { try? await channel.close() }
            return keepAlive
        case .reset:
            await channel.closeWithReset()
        case .truncated, .timeout, .failed:
            // What was written is flushed (the writes above waited for it); the end never comes.
            try? await channel.close()
        }
        return false
    }
}
