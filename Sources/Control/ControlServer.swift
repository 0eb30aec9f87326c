import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import Prometheus
import Proxy
import ServiceLifecycle

/// The control plane: a Hummingbird HTTP server on its own listener (`--control`, default
/// 127.0.0.1:8081) in front of a running `ProxyServer`. Sessions, their scenarios and the scenario
/// for every session, request records (polled or live), HAR, the reaction report, Prometheus metrics
/// and the OpenAPI document (`ControlAPI` has the routes). Every change takes effect on the next
/// request of the sessions it concerns; nothing in flight is touched.
public final class ControlServer: Sendable {
    public let proxy: ProxyServer
    public let configuration: ControlConfiguration
    /// The port actually bound (useful with port 0).
    public let port: Int
    /// The registry `/metrics` exports; a caller may add metrics of its own to it.
    public let registry: PrometheusCollectorRegistry
    /// Every route the router answers, read back from it (the dashboard's files included).
    let routes: [(method: HTTPRequest.Method, path: String)]
    private let serviceGroup: ServiceGroup
    private let serverTask: Task<Void, any Error>
    private let metricsObservation: RecordLog.Observation
    private let streams: EventStreams
    private let logger: Logger

    public struct StartError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The base URL clients use ("http://127.0.0.1:8081").
    public var url: String { "http://\(configuration.urlHost):\(port)" }

    /// Binds the listener and starts serving. Refuses a configuration that would listen beyond
    /// loopback without a token, and says so; fails with a readable message when the port is taken.
    public static func start(
        proxy: ProxyServer,
        configuration: ControlConfiguration,
        registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        logger: Logger = Logger(label: "hlschaos.control")
    ) async throws -> ControlServer {
        if let refusal = configuration.refusal { throw StartError(description: refusal) }
        let streams = EventStreams(limit: configuration.maxEventStreams)
        let metrics = ControlMetrics(proxy: proxy.control, registry: registry) { (streams.count, streams.limit) }
        let api = ControlAPI(proxy: proxy.control, configuration: configuration, metrics: metrics, streams: streams, logger: logger)
        let router = Router(context: BasicRequestContext.self)
        api.register(on: router)
        let routes = router.routes.map { (method: $0.method, path: $0.path.description) }

        let bound = BindSignal()
        let host = configuration.host.hasPrefix("[") ? String(configuration.host.dropFirst().dropLast()) : configuration.host
        let app = Application(
            router: router,
            server: .http1(configuration: .init(idleTimeout: TimeAmount(configuration.idleTimeout))),
            configuration: ApplicationConfiguration(
                address: .hostname(host, port: configuration.port),
                serverName: nil,
                availableConnectionsDelegate: MaximumAvailableConnections(configuration.maxConnections)),
            onServerRunning: { channel in bound.succeed(channel.localAddress?.port ?? configuration.port) },
            logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        let serverTask = Task { try await group.run() }
        Task {
            // Ends the wait below when the server stops before it listened (the port is taken…).
            do {
                try await serverTask.value
                bound.fail(StartError(description: "the control API stopped before it listened"))
            } catch {
                bound.fail(error)
            }
        }
        let port: Int
        do {
            port = try await bound.value()
        } catch {
            serverTask.cancel()
            throw StartError(description: describe(error, configuration: configuration))
        }
        let metricsObservation = proxy.control.observe { metrics.observe($0) }
        return ControlServer(
            proxy: proxy, configuration: configuration, port: port, registry: registry, routes: routes,
            serviceGroup: group, serverTask: serverTask, metricsObservation: metricsObservation, streams: streams, logger: logger)
    }

    private init(
        proxy: ProxyServer, configuration: ControlConfiguration, port: Int, registry: PrometheusCollectorRegistry,
        routes: [(method: HTTPRequest.Method, path: String)], serviceGroup: ServiceGroup, serverTask: Task<Void, any Error>,
        metricsObservation: RecordLog.Observation, streams: EventStreams, logger: Logger
    ) {
        self.proxy = proxy
        self.configuration = configuration
        self.port = port
        self.registry = registry
        self.routes = routes
        self.serviceGroup = serviceGroup
        self.serverTask = serverTask
        self.metricsObservation = metricsObservation
        self.streams = streams
        self.logger = logger
    }

    /// Stops accepting, ends the live event streams, lets requests in progress finish (at most
    /// `timeout`, then they are cancelled) and returns when the listener is closed.
    public func shutdown(timeout: Duration = .seconds(5)) async {
        streams.closeAll()
        await serviceGroup.triggerGracefulShutdown()
        let serverTask = self.serverTask
        let deadline = Task {
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled { serverTask.cancel() }
        }
        _ = try? await serverTask.value
        deadline.cancel()
        metricsObservation.cancel()
    }

    /// Returns when the server has stopped (after `shutdown()`, or when it failed on its own).
    public func run() async {
        _ = try? await serverTask.value
    }

    /// Live event streams open now.
    public var eventStreamCount: Int { streams.count }

    private static func describe(_ error: any Error, configuration: ControlConfiguration) -> String {
        let address = "\(configuration.urlHost):\(configuration.port)"
        if let error = error as? IOError {
            switch error.errnoCode {
            case EADDRINUSE:
                return "the control API cannot listen on \(address): the port is already in use; stop the other program or choose another with --control HOST:PORT (or --control off)"
            case EACCES:
                return "the control API is not allowed to listen on \(address): ports below 1024 need root; choose another with --control HOST:PORT"
            case EADDRNOTAVAIL:
                return "the control API cannot listen on \(address): no interface of this machine has that address"
            default: break
            }
        }
        return "the control API cannot listen on \(address): \(error)"
    }
}

/// The port the listener got, or why it did not: settled once, by whichever comes first.
private final class BindSignal: Sendable {
    private enum State {
        case waiting([CheckedContinuation<Int, any Error>])
        case done(Result<Int, any Error>)
    }
    private let state = NIOLockedValueBox(State.waiting([]))

    func succeed(_ port: Int) { settle(.success(port)) }
    func fail(_ error: any Error) { settle(.failure(error)) }

    private func settle(_ result: Result<Int, any Error>) {
        let waiters = state.withLockedValue { state -> [CheckedContinuation<Int, any Error>] in
            guard case .waiting(let waiters) = state else { return [] }
            state = .done(result)
            return waiters
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    func value() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            let settled = state.withLockedValue { state -> Result<Int, any Error>? in
                switch state {
                case .waiting(let waiters):
                    state = .waiting(waiters + [continuation])
                    return nil
                case .done(let result):
                    return result
                }
            }
            if let settled { continuation.resume(with: settled) }
        }
    }
}
