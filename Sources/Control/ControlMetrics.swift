import Addressing
import CoreMetrics
import Foundation
import NIOConcurrencyHelpers
import Prometheus
import Proxy
import Records

/// What `GET /metrics` shows, in the Prometheus text format.
///
/// Request metrics come from the records the data plane emits (one per request, read from
/// `RecordLog.observe`, on the event loop that ends the request, counted per loop and handed over in
/// batches: `RequestTally`), through swift-metrics counters and timers backed by a swift-prometheus
/// registry of this server's own (several proxies in one process, as in the tests, do not mix):
/// requests by kind, status and fault; how responses ended; body bytes sent; request duration and the
/// origin's time to first byte (histograms); origin failures.
///
/// The sizes of the bounded structures are gauges read when scraped: sessions, client connections,
/// records kept, rule engines cached, playlist history bytes, learned hosts, live event streams, each
/// next to its limit (the config key that sets it is in the help of `config.example.json`).
final class ControlMetrics: Sendable {
    let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    private let proxy: ProxyControl
    private let eventStreams: @Sendable () -> (open: Int, limit: Int)
    private let state = NIOLockedValueBox(State())

    private struct State {
        var counters: [String: CoreMetrics.Counter] = [:]
        var timers: [String: CoreMetrics.Timer] = [:]
        /// Totals the proxy keeps as plain numbers, as last exported (counters only go up by the difference).
        var exported: [String: Int] = [:]
    }

    init(
        proxy: ProxyControl, registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        eventStreams: @escaping @Sendable () -> (open: Int, limit: Int)
    ) {
        self.proxy = proxy
        self.registry = registry
        self.eventStreams = eventStreams
        var factory = PrometheusMetricsFactory(registry: registry)
        let seconds: [Duration] = [
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
            .seconds(30), .seconds(60),
        ]
        factory.defaultDurationHistogramBuckets = seconds
        self.factory = factory
    }

    // MARK: - From records

    /// Counts one request. Runs on the event loop that ends the request, for every request, into
    /// that loop's own `RequestTally`, which hands its numbers to the registry in batches and when
    /// scraped.
    func observe(_ record: RequestRecord) {
        let tally = PerThreadCache.value(threadTally) {
            let made = RequestTally()
            tallies.withLockedValue { $0.append(made) }
            return made
        }
        tally.count(
            Shape(kind: record.kind, status: record.status, fault: record.isFaulted, ending: record.ending),
            bytes: max(0, record.bytesSent), durationNanoseconds: Self.nanoseconds(record.duration),
            firstByteNanoseconds: record.upstream?.firstByte.map(Self.nanoseconds),
            upstreamFailed: record.upstream?.error != nil, instruments: makeInstruments)
    }

    /// What the request metrics are broken down by.
    struct Shape: Hashable {
        var kind: ResourceKind?
        var status: Int?
        var fault: Bool
        var ending: RequestRecord.Ending
    }

    /// Each event loop's tally, and all of them for a scrape to fold. A tally the per-thread cache
    /// lets go of stays in `tallies`, so nothing it counted is lost.
    private let threadTally = PerThreadCache.Key()
    private let tallies = NIOLockedValueBox<[RequestTally]>([])

    struct Instruments {
        var requests: CoreMetrics.Counter
        var endings: CoreMetrics.Counter
        var bytes: CoreMetrics.Counter
        var duration: CoreMetrics.Timer
        var firstByte: CoreMetrics.Timer
        var upstreamFailures: CoreMetrics.Counter
    }

    /// The instruments of a shape: shared by name and dimensions (`counter`, `timer`), so every
    /// event loop's tally counts into the same ones.
    private func makeInstruments(_ shape: Shape) -> Instruments {
        let kind = shape.kind?.rawValue ?? "none"
        return Instruments(
            requests: counter("hlschaos_requests_total", [("kind", kind), ("status", shape.status.map(String.init) ?? "none"), ("fault", shape.fault ? "yes" : "no")]),
            endings: counter("hlschaos_request_endings_total", [("ending", shape.ending.rawValue)]),
            bytes: counter("hlschaos_sent_bytes_total", [("kind", kind)]),
            duration: timer("hlschaos_request_duration_seconds", [("kind", kind)]),
            firstByte: timer("hlschaos_upstream_first_byte_seconds", [("kind", kind)]),
            upstreamFailures: counter("hlschaos_upstream_failures_total", [("kind", kind)]))
    }

    private static func nanoseconds(_ seconds: Double) -> Int64 {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return Int64(min(seconds, 1e9) * 1e9)
    }

    private func counter(_ name: String, _ dimensions: [(String, String)]) -> CoreMetrics.Counter {
        let key = Self.key(name, dimensions)
        return state.withLockedValue { state in
            if let counter = state.counters[key] { return counter }
            let counter = CoreMetrics.Counter(label: name, dimensions: dimensions, factory: factory)
            state.counters[key] = counter
            return counter
        }
    }

    private func timer(_ name: String, _ dimensions: [(String, String)]) -> CoreMetrics.Timer {
        let key = Self.key(name, dimensions)
        return state.withLockedValue { state in
            if let timer = state.timers[key] { return timer }
            let timer = CoreMetrics.Timer(label: name, dimensions: dimensions, factory: factory)
            state.timers[key] = timer
            return timer
        }
    }

    private static func key(_ name: String, _ dimensions: [(String, String)]) -> String {
        dimensions.reduce(name) { $0 + "|" + $1.0 + "=" + $1.1 }
    }

    // MARK: - At scrape time

    /// The Prometheus text of every metric, with the gauges read now.
    func scrape() -> [UInt8] {
        for tally in tallies.withLockedValue({ $0 }) { tally.fold() }
        let now = proxy.snapshot()
        let streams = eventStreams()
        gauge("hlschaos_sessions", now.sessions)
        gauge("hlschaos_sessions_limit", now.sessionLimit)
        total("hlschaos_sessions_evicted_total", now.sessionsEvicted)
        gauge("hlschaos_client_connections", now.clientConnections)
        gauge("hlschaos_client_connections_limit", now.clientConnectionLimit)
        total("hlschaos_client_connections_refused_total", now.clientConnectionsRefused)
        gauge("hlschaos_records_kept", now.recordsKept)
        gauge("hlschaos_records_kept_limit", now.recordsKeptLimit)
        gauge("hlschaos_records_kept_bytes", now.recordBytesKept)
        gauge("hlschaos_records_kept_bytes_limit", now.recordBytesKeptLimit)
        gauge("hlschaos_rule_engines_cached", now.ruleEnginesCached)
        gauge("hlschaos_rule_engines_cached_limit", now.ruleEngineCacheLimit)
        gauge("hlschaos_presets", now.presets)
        gauge("hlschaos_playlist_histories", now.playlistHistories)
        gauge("hlschaos_playlist_history_bytes", now.playlistHistoryBytes)
        gauge("hlschaos_playlist_history_bytes_limit_per_session", now.playlistHistoryBytesLimitPerSession)
        gauge("hlschaos_learned_hosts_full", now.learnedHostsFull ? 1 : 0)
        gauge("hlschaos_learned_hosts_limit", now.learnedHostsLimit)
        gauge("hlschaos_rewrite_cache_bytes_limit", now.rewriteCacheBytesLimit)
        gauge("hlschaos_event_streams", streams.open)
        gauge("hlschaos_event_streams_limit", streams.limit)
        return registry.emitToBuffer()
    }

    private func gauge(_ name: String, _ value: Int) {
        CoreMetrics.Gauge(label: name, factory: factory).record(value)
    }

    /// A total the proxy counts itself, exported as a counter.
    private func total(_ name: String, _ value: Int) {
        let delta = state.withLockedValue { state -> Int in
            let delta = value - state.exported[name, default: 0]
            if delta > 0 { state.exported[name] = value }
            return delta
        }
        let counter = counter(name, [])
        if delta > 0 { counter.increment(by: Int64(delta)) }
    }
}
