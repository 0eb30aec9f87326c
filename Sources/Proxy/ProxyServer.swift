import Chaos
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import Upstream

/// The data plane: an HTTP/1.1 server whose every request goes through `ProxyHandler`.
public final class ProxyServer: Sendable {
    typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    public let configuration: ProxyConfiguration
    public let sessions: SessionStore
    public let allowlist: HostAllowlist
    public let rules: RuleBook
    public let events: EventLog
    /// The port actually bound (useful with port 0).
    public let port: Int
    private let serverChannel: NIOAsyncChannel<Connection, Never>
    private let handler: ProxyHandler
    private let connections = ConnectionRegistry()
    private let logger: Logger

    public struct BindError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Binds the listening socket. Fails with a readable message when the port is taken.
    public static func bind(
        configuration: ProxyConfiguration,
        upstream: UpstreamClient,
        rules: RuleBook? = nil,
        clock: any ChaosClock = SystemChaosClock(),
        group: EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "hlschaos.proxy")
    ) async throws -> ProxyServer {
        let channel: NIOAsyncChannel<Connection, Never>
        do {
            channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 512)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelOption(.allowRemoteHalfClosure, value: false)
                .bind(host: configuration.host, port: configuration.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        return try Connection(wrappingChannelSynchronously: channel)
                    }
                }
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw BindError(description: "port \(configuration.port) on \(configuration.host) is already in use: stop the other program or choose another port with --port")
        } catch let error as IOError where error.errnoCode == EACCES {
            throw BindError(description: "not allowed to listen on port \(configuration.port): ports below 1024 need root; choose another with --port")
        } catch {
            throw BindError(description: "cannot listen on \(configuration.host):\(configuration.port): \(error)")
        }
        let rules = try rules ?? RuleBook(ruleFiles: [], presetDirectory: nil)
        return ProxyServer(configuration: configuration, upstream: upstream, rules: rules, clock: clock, channel: channel, logger: logger)
    }

    private init(
        configuration: ProxyConfiguration, upstream: UpstreamClient, rules: RuleBook, clock: any ChaosClock,
        channel: NIOAsyncChannel<Connection, Never>, logger: Logger
    ) {
        self.rules = rules
        self.events = EventLog(logger: logger)
        self.configuration = configuration
        self.sessions = SessionStore(idleTimeout: configuration.sessionIdleTimeout)
        self.allowlist = HostAllowlist(origins: configuration.allOrigins)
        self.serverChannel = channel
        self.port = channel.channel.localAddress?.port ?? configuration.port
        self.logger = logger
        self.handler = ProxyHandler(
            configuration: configuration, upstream: upstream, sessions: sessions,
            allowlist: allowlist, rules: rules, clock: clock, events: events, logger: logger)
    }

    /// Accepts connections until `shutdown()`; returns once every connection has finished.
    public func run() async {
        await withDiscardingTaskGroup { group in
            do {
                try await serverChannel.executeThenClose { inbound in
                    for try await connection in inbound {
                        group.addTask { await self.serve(connection) }
                    }
                }
            } catch {
                logger.error("accept loop ended: \(error)")
            }
        }
    }

    /// Stops accepting, closes idle keep-alive connections and lets in-flight responses finish.
    public func shutdown() {
        connections.beginShutdown()
        serverChannel.channel.close(promise: nil)
    }

    private func serve(_ connection: Connection) async {
        let id = connections.register(connection.channel)
        defer { connections.unregister(id) }
        // The request in progress is cancelled when the client disconnects, so its upstream transfer
        // and any fault timer stop at once. One close callback per connection, not per request.
        let current = NIOLockedValueBox<Task<ProxyHandler.Disposition, Never>?>(nil)
        connection.channel.closeFuture.whenComplete { _ in current.withLockedValue { $0?.cancel() } }
        do {
            try await connection.executeThenClose { inbound, outbound in
                var parts = inbound.makeAsyncIterator()
                while let part = try await parts.next() {
                    guard case .head(let head) = part else { continue }
                    while let rest = try await parts.next() {
                        if case .end = rest { break }
                    }
                    guard connections.markBusy(id) else { return }
                    let client = ClientChannel(
                        channel: connection.channel, outbound: outbound, requestHead: head,
                        cors: configuration.cors)
                    let task = Task { await handler.handle(client) }
                    let closed = current.withLockedValue { current -> Bool in
                        current = task
                        return !connection.channel.isActive
                    }
                    if closed { task.cancel() }
                    let disposition = await task.value
                    guard connections.markIdle(id), disposition == .keepAlive, head.isKeepAlive else { return }
                }
            }
        } catch {
            logger.debug("connection ended: \(error)")
        }
    }

}

/// Tracks open connections so a shutdown can close the idle ones and wait for the busy ones.
final class ConnectionRegistry: Sendable {
    private struct State {
        var nextID = 0
        var idle: [Int: Channel] = [:]
        var busy: [Int: Channel] = [:]
        var shuttingDown = false
    }
    private let state = NIOLockedValueBox(State())

    func register(_ channel: Channel) -> Int {
        let (id, closeNow) = state.withLockedValue { state -> (Int, Bool) in
            state.nextID += 1
            state.idle[state.nextID] = channel
            return (state.nextID, state.shuttingDown)
        }
        if closeNow { channel.close(promise: nil) }
        return id
    }

    func unregister(_ id: Int) {
        state.withLockedValue {
            $0.idle[id] = nil
            $0.busy[id] = nil
        }
    }

    /// False when shutting down: the request is not started.
    func markBusy(_ id: Int) -> Bool {
        state.withLockedValue { state in
            guard !state.shuttingDown, let channel = state.idle.removeValue(forKey: id) else { return false }
            state.busy[id] = channel
            return true
        }
    }

    /// False when shutting down: the connection closes after the response it just finished.
    func markIdle(_ id: Int) -> Bool {
        state.withLockedValue { state in
            guard let channel = state.busy.removeValue(forKey: id) else { return false }
            state.idle[id] = channel
            return !state.shuttingDown
        }
    }

    func beginShutdown() {
        let idle = state.withLockedValue { state -> [Channel] in
            state.shuttingDown = true
            return Array(state.idle.values)
        }
        for channel in idle { channel.close(promise: nil) }
    }
}
