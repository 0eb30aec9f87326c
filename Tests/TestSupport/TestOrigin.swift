import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// A programmable loopback HTTP/1.1 origin for end-to-end tests: routes map a path (query ignored)
/// to a canned `Response`; it logs requests and counts connections and completed/aborted responses.
public final class TestOrigin: Sendable {
    public struct LoggedRequest: Sendable {
        public let method: String
        /// Path and query as sent.
        public let uri: String
        public let headers: [(name: String, value: String)]
        /// The client's port: requests with the same port came over the same connection.
        public let remotePort: Int

        public var path: String { String(uri.split(separator: "?", maxSplits: 1).first ?? "") }

        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    struct State {
        var routes: [String: Response] = [:]
        var directories: [(prefix: String, directory: String)] = []
        var requestLog: [LoggedRequest] = []
        var connectionsAccepted = 0
        var responsesCompleted = 0
        var responsesAborted = 0
        var heldBack = 0
        var children: [ObjectIdentifier: any Channel] = [:]
    }

    let state = NIOLockedValueBox(State())
    private let serverChannel = NIOLockedValueBox<(any Channel)?>(nil)
    public let port: Int
    public let host: String

    private init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    public var baseURL: String { "http://\(host):\(port)" }

    /// Starts listening; port 0 picks a free port. On NIO's shared threads unless `group` is given:
    /// a test that times what the origin does gives it threads of its own, which work another test
    /// runs on the shared ones cannot hold up.
    public static func start(host: String = "127.0.0.1", port: Int = 0, group: EventLoopGroup? = nil) async throws -> TestOrigin {
        let box = NIOLockedValueBox<TestOrigin?>(nil)
        let bootstrap = ServerBootstrap(group: group ?? MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                guard let origin = box.withLockedValue({ $0 }) else {
                    return channel.close()
                }
                origin.accepted(channel)
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(OriginHandler(origin: origin))
                }
            }
        let channel = try await bootstrap.bind(host: host, port: port).get()
        let origin = TestOrigin(host: host, port: channel.localAddress?.port ?? port)
        origin.serverChannel.withLockedValue { $0 = channel }
        box.withLockedValue { $0 = origin }
        return origin
    }

    /// Runs `body` with a started origin (as `start`) and shuts it down afterwards, also when
    /// `body` throws.
    public static func with<Result>(
        host: String = "127.0.0.1", port: Int = 0, group: EventLoopGroup? = nil,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (TestOrigin) async throws -> Result
    ) async throws -> Result {
        try await withStarted(
            isolation: isolation, { try await start(host: host, port: port, group: group) }, stop: { try await $0.shutdown() }, run: body)
    }

    /// Adds or replaces the route for `path` (without query); safe while serving.
    public func route(_ path: String, _ response: Response) {
        state.withLockedValue { $0.routes[path] = response }
    }

    /// Serves the files under `directory` for request paths under `urlPrefix` ("/media/"), with a
    /// content type from the extension (m3u8, ts, m4s, mp4, aac, vtt, key…). Exact routes win;
    /// paths containing ".." get 404.
    public func routeDirectory(_ urlPrefix: String, directory: String) {
        state.withLockedValue { $0.directories.append((prefix: urlPrefix, directory: directory)) }
    }

    public var requestLog: [LoggedRequest] { state.withLockedValue { $0.requestLog } }
    public var connectionsAccepted: Int { state.withLockedValue { $0.connectionsAccepted } }
    /// Responses whose last byte was handed to the kernel. The count can trail the client having
    /// read those bytes by a moment: assert it with `waitUntil`.
    public var responsesCompleted: Int { state.withLockedValue { $0.responsesCompleted } }
    /// Responses cut short because the client went away (or a write failed).
    public var responsesAborted: Int { state.withLockedValue { $0.responsesAborted } }
    /// Times a generated body waited with its socket's send buffer full after a flush: the client
    /// (or a proxy in front of it, itself waiting for its client) stopped taking bytes.
    public var heldBackCount: Int { state.withLockedValue { $0.heldBack } }

    /// Polls `condition` until it holds or `timeout` passes; returns whether it held. 30 s by default:
    /// in CI's unit phase a task waiting for one of the two pool threads, busy with CPU-heavy tests,
    /// once took over 10 s to send its request.
    public func waitUntil(timeout: Duration = .seconds(30), _ condition: @Sendable (TestOrigin) -> Bool) async -> Bool {
        await eventually(timeout: timeout) { condition(self) }
    }

    /// Stops listening and closes open connections; a second call does nothing.
    public func shutdown() async throws {
        let server = serverChannel.withLockedValue { channel -> (any Channel)? in
            defer { channel = nil }
            return channel
        }
        try await server?.close()
        let children = state.withLockedValue { Array($0.children.values) }
        for child in children { try? await child.close() }
    }

    // MARK: handler callbacks

    private func accepted(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        state.withLockedValue {
            $0.connectionsAccepted += 1
            $0.children[id] = channel
        }
        channel.closeFuture.whenComplete { [self] _ in
            _ = state.withLockedValue { $0.children.removeValue(forKey: id) }
        }
    }

    func responseFor(_ request: LoggedRequest) -> Response? {
        state.withLockedValue { state in
            state.requestLog.append(request)
            if let response = state.routes[request.path] { return response }
            for (prefix, directory) in state.directories where request.path.hasPrefix(prefix) {
                let relative = String(request.path.dropFirst(prefix.count))
                let components = relative.split(separator: "/")
                guard !components.contains(".."), !components.isEmpty else { return nil }
                let path = directory + "/" + components.joined(separator: "/")
                return .file(path: path, contentType: Self.contentType(forPath: path))
            }
            return nil
        }
    }

    static func contentType(forPath path: String) -> String {
        switch path.split(separator: ".").last?.lowercased() ?? "" {
        case "m3u8": return "application/vnd.apple.mpegurl"
        case "ts": return "video/mp2t"
        case "m4s", "mp4", "m4v": return "video/mp4"
        case "m4a": return "audio/mp4"
        case "aac": return "audio/aac"
        case "vtt", "webvtt": return "text/vtt"
        case "json": return "application/json"
        default: return "application/octet-stream"
        }
    }

    func countCompleted() { state.withLockedValue { $0.responsesCompleted += 1 } }
    func countAborted() { state.withLockedValue { $0.responsesAborted += 1 } }
    func countHeldBack() { state.withLockedValue { $0.heldBack += 1 } }
}

extension TestOrigin {
    public enum Response: Sendable {
        /// Honours Range (206/416) and HEAD when `status` is 200.
        case bytes(status: Int = 200, headers: [(String, String)] = [], body: [UInt8])
        /// The file's bytes, read on each request; honours Range and HEAD. 404 when missing.
        case file(path: String, contentType: String)
        /// `size` pattern bytes (see `patternBytes`), written `chunk` bytes at a time, optionally
        /// pausing between chunks; honours Range and HEAD; never buffers the whole body.
        case generated(size: Int, chunk: Int = 64 * 1024, delayBetweenChunks: Duration? = nil)
        /// Waits before answering with `then`.
        indirect case delayedHeaders(Duration, then: Response)
        case redirect(status: Int = 302, location: String)
        /// Closes the connection without answering.
        case closeImmediately
        /// gzip-encoded when the request's Accept-Encoding allows gzip, plain otherwise.
        case gzip(body: [UInt8], contentType: String)
        /// Announces `size` pattern bytes, sends the first `after`, then closes the connection
        /// (counted neither completed nor aborted).
        case truncated(size: Int, after: Int)
        /// These exact bytes as the whole response (head and body), then the connection closes:
        /// for heads no well-behaved server would send.
        case raw([UInt8])
    }
}
