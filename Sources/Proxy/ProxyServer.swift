import CertificateAuthority
import Chaos
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import RuleLoading
import Upstream

/// The data plane: an HTTP/1.1 server whose every request goes through `ProxyHandler`.
public final class ProxyServer: Sendable {
    let configuration: ProxyConfiguration
    let sessions: SessionStore
    let allowlist: HostAllowlist
    let rules: RuleBook
    /// Every request's record: the newest in memory, and a JSON Lines file with `eventsFile`.
    let records: RecordLog
    /// Recording bundles of what devices fetched (`--record`, the control API).
    let recorder: ProxyRecorder
    /// The rule clock (engine instants): API scenarios start their clock from it.
    let clock: any ChaosClock
    /// The rules set through the control API for every session.
    let apiLayers: ControlLayers
    /// The port actually bound (useful with port 0).
    public let port: Int
    /// The HTTPS listener's port, when there is one.
    public let httpsPort: Int?
    /// Devices seen by the forward proxy, and the session names given to their addresses.
    let devices: DeviceNames
    /// This process's listening ports (forward requests may not reach them).
    let ownPorts: ListeningPorts
    private let serverChannel: Channel
    private let httpsChannel: Channel?
    private let connections: ConnectionRegistry

    public struct BindError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Binds the listening sockets (the proxy's, and its HTTPS one when configured). Fails with a
    /// readable message when a port is taken or TLS cannot be set up.
    public static func bind(
        configuration: ProxyConfiguration,
        upstream: UpstreamClient,
        rules: RuleBook? = nil,
        certificates: LocalCA? = nil,
        devices: DeviceNames = DeviceNames(),
        clock: any ChaosClock = SystemChaosClock(),
        group: EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "hlschaos.proxy")
    ) async throws -> ProxyServer {
        let rules = try rules ?? RuleBook(ruleFiles: [], presetDirectory: nil)
        let ownPorts = upstream.listeningPorts
        let records = try RecordLog(configuration: configuration, logger: logger)
        let sessions = SessionStore(
            idleTimeout: configuration.sessionIdleTimeout, capacity: configuration.memory.maxSessions,
            historyBytes: configuration.memory.playlistHistoryBytes, notice: LimitNotice(configKey: "maxSessions", logger: logger),
            clock: clock)
        let allowlist = HostAllowlist(
            origins: configuration.allOrigins, learnedLimit: configuration.memory.maxLearnedHosts,
            notice: LimitNotice(configKey: "maxLearnedHosts", logger: logger))
        let control = ControlLayers()
        let recorder = ProxyRecorder(logger: logger)
        let connections = ConnectionRegistry(
            limit: configuration.clients.maxConnections,
            notice: LimitNotice(configKey: "maxClientConnections", logger: logger))
        let limits = RequestHeadWatch.Limits(
            requestHeadTimeout: .nanoseconds(Int64(configuration.clients.requestHeadTimeout * 1e9)),
            keepAliveTimeout: .nanoseconds(Int64(configuration.clients.keepAliveTimeout * 1e9)),
            maxHeadBytes: configuration.clients.maxRequestHeadBytes)
        let tls = certificates.map { TLSContexts(issuer: $0) }
        var forwarding: ProxyHandler.Forwarding?
        if configuration.forward.enabled {
            if tls == nil && !configuration.forward.intercept.isEmpty {
                throw BindError(description: "forward.intercept needs the local certificate authority (hlschaos ca) to terminate TLS")
            }
            forwarding = ProxyHandler.Forwarding(
                settings: configuration.forward, access: ForwardAccess(settings: configuration.forward, devices: devices),
                tls: tls, ownPorts: ownPorts)
        }
        let handler = ProxyHandler(
            configuration: configuration, upstream: upstream, sessions: sessions,
            allowlist: allowlist, rules: rules, clock: clock, records: records, control: control, recorder: recorder,
            forwarding: forwarding,
            setupPage: SetupPage(content: DeviceSetupPage(root: certificates.map(DeviceSetupPage.Root.init), forward: configuration.forward.enabled)),
            ownPorts: ownPorts, logger: logger)
        let setup = ConnectionSetup(handler: handler, registry: connections, cors: configuration.cors, limits: limits, tls: tls)
        let channel = try await listen(host: configuration.host, port: configuration.port, group: group, flag: "--port") { channel in
            try setup.addHTTP1(to: channel, way: .direct)
        }
        ownPorts.add(channel.localAddress?.port ?? configuration.port)
        var httpsChannel: Channel?
        if let https = configuration.https {
            do {
                let context = try httpsContext(https, certificates: certificates, host: configuration.host)
                let bound = try await listen(host: configuration.host, port: https.port, group: group, flag: "--https-port") { channel in
                    try setup.addTLS(to: channel, context: context, way: .direct)
                }
                httpsChannel = bound
                ownPorts.add(bound.localAddress?.port ?? https.port)
            } catch {
                try? await channel.close()
                throw error
            }
        }
        if let path = configuration.recordPath {
            // Started once the port is bound, so a failed start-up leaves no half-made bundle.
            do {
                try recorder.start(session: nil, path: path, redact: configuration.recordRedact, maxBytes: configuration.recordMaxBytes)
            } catch {
                try? await channel.close()
                try? await httpsChannel?.close()
                throw BindError(description: "cannot record: \(error)")
            }
        }
        return ProxyServer(
            configuration: configuration, rules: rules, records: records, recorder: recorder, clock: clock, apiLayers: control,
            sessions: sessions, allowlist: allowlist, devices: devices, ownPorts: ownPorts,
            connections: connections, channel: channel, httpsChannel: httpsChannel)
    }

    private static func listen(
        host: String, port: Int, group: EventLoopGroup, flag: String, initialize: @escaping @Sendable (Channel) throws -> Void
    ) async throws -> Channel {
        do {
            return try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 512)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelOption(.allowRemoteHalfClosure, value: false)
                .childChannelInitializer { channel in channel.eventLoop.makeCompletedFuture { try initialize(channel) } }
                .bind(host: host, port: port)
                .get()
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw BindError(description: "port \(port) on \(host) is already in use: stop the other program or choose another port with \(flag)")
        } catch let error as IOError where error.errnoCode == EACCES {
            throw BindError(description: "not allowed to listen on port \(port): ports below 1024 need root; choose another with \(flag)")
        } catch {
            throw BindError(description: "cannot listen on \(host):\(port): \(error)")
        }
    }

    /// The HTTPS listener's TLS: the user's certificate and key, or a leaf of the local CA naming
    /// this machine (its host name, localhost and its addresses).
    private static func httpsContext(
        _ https: ProxyConfiguration.HTTPSSettings, certificates: LocalCA?, host: String
    ) throws -> NIOSSLContext {
        do {
            if let certificate = https.certificateFile, let key = https.keyFile {
                return try TLSContexts.context(certificateFile: certificate, keyFile: key)
            }
            guard let certificates else {
                throw BindError(description: "the HTTPS listener needs --tls-cert and --tls-key, or the local certificate authority (hlschaos ca)")
            }
            return try TLSContexts.context(issuer: certificates, names: MachineNames.current(listeningOn: host))
        } catch let error as BindError {
            throw error
        } catch {
            throw BindError(description: "cannot set up the HTTPS listener: \(error)")
        }
    }

    private init(
        configuration: ProxyConfiguration, rules: RuleBook, records: RecordLog, recorder: ProxyRecorder, clock: any ChaosClock,
        apiLayers: ControlLayers, sessions: SessionStore,
        allowlist: HostAllowlist, devices: DeviceNames, ownPorts: ListeningPorts, connections: ConnectionRegistry, channel: Channel,
        httpsChannel: Channel?
    ) {
        self.devices = devices
        self.ownPorts = ownPorts
        self.httpsChannel = httpsChannel
        self.httpsPort = httpsChannel?.localAddress?.port
        self.configuration = configuration
        self.rules = rules
        self.records = records
        self.recorder = recorder
        self.clock = clock
        self.apiLayers = apiLayers
        self.sessions = sessions
        self.allowlist = allowlist
        self.connections = connections
        self.serverChannel = channel
        self.port = channel.localAddress?.port ?? configuration.port
    }

    /// Serves until `shutdown()`; returns once every connection has finished.
    public func run() async {
        try? await serverChannel.closeFuture.get()
        try? await httpsChannel?.close()
        connections.beginShutdown()  // also when the listening socket failed on its own
        await connections.waitUntilEmpty()
        recorder.stopAll()
    }

    /// Stops accepting, closes idle keep-alive connections and lets in-flight responses finish.
    public func shutdown() {
        connections.beginShutdown()
        serverChannel.close(promise: nil)
        httpsChannel?.close(promise: nil)
    }

    /// Closes every connection now, responses in flight included (the end of a shutdown's drain
    /// time). Their request tasks are cancelled, and with them upstream transfers and fault timers.
    public func closeAllConnections() {
        shutdown()
        connections.closeAll()
    }

    /// Client connections open now.
    public var connectionCount: Int { connections.count }
    /// Connections closed at once because `maxClientConnections` were open.
    public var refusedConnectionCount: Int { connections.refusedCount }
}
