import Addressing
import BundleFormat
import Chaos
import Foundation
import Records

/// Everything the control plane (the control API, `hlschaos run` and `matrix`, the CLI's printer)
/// may see of and do to a running proxy, and nothing else: the proxy's stores stay its own. Every
/// change takes effect on the next request of the sessions it concerns; nothing in flight is touched.
public struct ProxyControl: Sendable {
    let server: ProxyServer

    /// The port the data plane listens on.
    public var port: Int { server.port }
    /// The HTTPS listener's port (`--https-port`), when there is one.
    public var httpsPort: Int? { server.httpsPort }
    /// Whether forward mode is on (`--forward`): devices then reach the proxy through their proxy setting.
    public var forwardEnabled: Bool { server.configuration.forward.enabled }

    /// Tells the proxy about another listener of this process (the control API): forward requests
    /// and CONNECTs to it are refused like those to the proxy's own ports.
    public func addOwnListener(port: Int) { server.ownPorts.add(port) }

    // MARK: - Devices (forward mode)

    /// The device setup page's path on the proxy's port.
    public static let setupPath = SetupPage.prefix + "setup"

    /// Devices seen by the forward proxy and addresses given a session name, by address.
    public func devices() -> [DeviceNames.Device] { server.devices.devices }

    /// Gives the device at `address` a session (nil: back to `ip-<address>`). The address must be an IP address.
    public func nameDevice(address: String, session: String?) {
        server.devices.name(address: address, session: session)
    }

    // MARK: - Sessions

    /// A session as the control plane shows it.
    public struct SessionSummary: Sendable, Equatable {
        public var id: String
        public var startedAt: Date
        public var requestCount: Int
        /// The scenario set through the API, by name.
        public var scenario: String?
        /// `stripCMCD` set through the API for this session (nil: the configuration's).
        public var stripCMCD: Bool? = nil
    }

    public var sessionCount: Int { server.sessions.count }

    /// Live sessions, least recently used first.
    public func sessions() -> [SessionSummary] { server.sessions.all.map(Self.summary) }

    public func session(_ id: String) -> SessionSummary? { server.sessions.existing(id).map(Self.summary) }

    /// Creates the session `id` (or finds it) and sets its scenario. Its clock and counters for that
    /// scenario start now.
    @discardableResult
    public func openSession(_ id: String, scenario: Scenario?) -> SessionSummary {
        let session = server.sessions.create(id)
        session.setScenario(scenario, now: server.clock.now())
        return Self.summary(session)
    }

    /// Forgets a session (its records stay in the record log); false when there was none.
    public func removeSession(_ id: String) -> Bool { server.sessions.remove(id) }

    /// Sets or clears the scenario of a live session; nil when there is no such session.
    @discardableResult
    public func setScenario(_ scenario: Scenario?, session id: String) -> SessionSummary? {
        guard let session = server.sessions.existing(id) else { return nil }
        session.setScenario(scenario, now: server.clock.now())
        return Self.summary(session)
    }

    /// The scenario applied to every session through the API; setting it starts its clock now.
    public var scenarioForEverySession: Scenario? { server.apiLayers.scenario }

    public func setScenarioForEverySession(_ scenario: Scenario?) {
        server.apiLayers.set(scenario, now: server.clock.now())
    }

    /// Whether `id` may name a session (1–64 letters, digits, '.', '_' or '-').
    public static func isValidSessionID(_ id: String) -> Bool { ProxyPath.isValidName(id) }

    /// The URL prefix a device uses for the session (`/s/<id>`), to put after `http://host:port`.
    public static func sessionPath(_ id: String) -> String { ProxyPath(session: id, route: .origin(name: nil, pathAndQuery: "")).target }

    private static func summary(_ session: Session) -> SessionSummary {
        SessionSummary(
            id: session.id, startedAt: session.startedAt, requestCount: session.requestCount, scenario: session.scenario?.name,
            stripCMCD: session.stripCMCD)
    }

    // MARK: - Rules

    /// The presets a URL or the API can name, sorted.
    public var presetNames: [String] { server.rules.presetNames }

    public func preset(named name: String) -> Scenario? { server.rules.preset(named: name) }

    /// The scenarios of the rule files the proxy was started with (`--rules`), by name.
    public var ruleFileScenarioNames: [String] { server.rules.scenarios.map(\.name) }

    // MARK: - Records

    /// Records still in memory after the record id `since`, at most `limit`: the session's, or every
    /// session's when `session` is nil. Ids are a cursor, not the order requests arrived in.
    public func records(session: String?, since cursor: UInt64 = 0, limit: Int = .max) -> [RequestRecord] {
        guard let session else { return server.records.since(cursor, limit: limit) }
        return server.records.records(session: session, since: cursor, limit: limit)
    }

    /// Whether the session is live or still has records in memory.
    public func isKnown(session id: String) -> Bool {
        server.sessions.existing(id) != nil || !server.records.records(session: id, limit: 1).isEmpty
    }

    /// Records as they are emitted (see `RecordLog.subscribe`).
    public func subscribe(
        bufferingNewest limit: Int = 1000, where filter: @escaping @Sendable (RequestRecord) -> Bool = { _ in true }
    ) -> AsyncStream<RequestRecord> {
        server.records.subscribe(bufferingNewest: limit, where: filter)
    }

    /// Every record, on the emitting thread, for short work such as counting (see `RecordLog.observe`).
    public func observe(_ observer: @escaping @Sendable (RequestRecord) -> Void) -> RecordLog.Observation {
        server.records.observe(observer)
    }

    /// Writes what the events file has buffered.
    public func flushRecords() { server.records.flush() }

    // MARK: - Reaction report

    /// The reaction report of a session: from its records in memory (or `records`, when the caller
    /// has settled them), read with what the session learnt from its playlists.
    /// - Parameter vodRunEnded: a VOD run whose player has finished (`hlschaos run`): no live
    ///   reload pacing to judge, and any silence after the last request is the end, not a stall.
    public func report(session id: String, records: [RequestRecord]? = nil, at now: Date = Date(), vodRunEnded: Bool = false) -> ReactionReport {
        let facts = server.sessions.existing(id)?.playlistFacts
        var report = ReactionReport.analyze(
            records ?? server.records.records(session: id), now: now,
            targetDuration: vodRunEnded ? nil : facts?.targetDuration,
            bandwidths: facts?.bandwidths ?? [:], lastMSN: facts?.lastMSN ?? [:],
            idleThreshold: vodRunEnded ? 0 : nil)
        if let field = server.configuration.fieldPlayer { report.addFieldPlayer(field) }
        return report
    }

    // MARK: - Recordings

    /// Where API recordings go (config `recordings`), and their defaults (`recordRedact`, `recordMaxBytes`).
    public var recordingDefaults: (directory: String, redact: Bool, maxBytes: Int?) {
        (server.configuration.recordingsDirectory, server.configuration.recordRedact, server.configuration.recordMaxBytes)
    }

    public var recordings: [ProxyRecorder.Status] { server.recorder.all }

    public func recordingStatus(session: String?) -> ProxyRecorder.Status? { server.recorder.status(session: session) }

    public func startRecording(session: String, path: String, redact: Bool, maxBytes: Int?) throws(BundleError) -> ProxyRecorder.Status {
        try server.recorder.start(session: session, path: path, redact: redact, maxBytes: maxBytes)
    }

    /// The finished bundle's manifest; nil when the session was not being recorded. The session nil
    /// is the recording of every session that `--record` started.
    public func stopRecording(session: String?) throws(BundleError) -> BundleManifest? {
        try server.recorder.stop(session: session)
    }

    // MARK: - Metrics

    /// The proxy's sizes and limits at one moment, for the metrics endpoint.
    public struct Snapshot: Sendable {
        public var sessions: Int
        public var sessionLimit: Int
        public var sessionsEvicted: Int
        public var playlistHistories: Int
        public var playlistHistoryBytes: Int
        public var playlistHistoryBytesLimitPerSession: Int
        public var clientConnections: Int
        public var clientConnectionLimit: Int
        public var clientConnectionsRefused: Int
        public var recordsKept: Int
        public var recordsKeptLimit: Int
        public var recordBytesKept: Int
        public var recordBytesKeptLimit: Int
        public var ruleEnginesCached: Int
        public var ruleEngineCacheLimit: Int
        public var presets: Int
        public var learnedHostsFull: Bool
        public var learnedHostsLimit: Int
        public var rewriteCacheBytesLimit: Int
    }

    public func snapshot() -> Snapshot {
        let live = server.sessions.all
        let recordBytes = server.records.keptBytes
        let configuration = server.configuration
        return Snapshot(
            sessions: live.count, sessionLimit: server.sessions.capacity, sessionsEvicted: server.sessions.evictedCount,
            playlistHistories: live.reduce(0) { $0 + $1.historyCount }, playlistHistoryBytes: live.reduce(0) { $0 + $1.historyBytes },
            playlistHistoryBytesLimitPerSession: server.sessions.historyBytes,
            clientConnections: server.connectionCount, clientConnectionLimit: configuration.clients.maxConnections,
            clientConnectionsRefused: server.refusedConnectionCount,
            recordsKept: server.records.keptCount, recordsKeptLimit: configuration.memory.recordBufferSize,
            recordBytesKept: recordBytes.used, recordBytesKeptLimit: recordBytes.limit,
            ruleEnginesCached: server.rules.engineCacheCount, ruleEngineCacheLimit: server.rules.engineCacheCapacity,
            presets: server.rules.presetNames.count,
            learnedHostsFull: server.allowlist.isFull, learnedHostsLimit: server.allowlist.learnedLimit,
            rewriteCacheBytesLimit: configuration.memory.rewriteCacheBytes)
    }
}

extension ProxyServer {
    /// The control plane's face of this proxy.
    public var control: ProxyControl { ProxyControl(server: self) }
}
