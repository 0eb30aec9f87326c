import Foundation
import Logging
import NIOConcurrencyHelpers
import BundleFormat
import Records
import Synchronization

/// Keeps what devices fetched through the proxy in recording bundles: one bundle for every session
/// (`--record`), and any number of per-session bundles (the control API). Each request of a
/// recorded session gets a `RequestCapture`; when its response ends, the capture becomes one
/// exchange: the status, headers and body the device got, keyed by the upstream URL, so that
/// `hlschaos replay` can serve it as an origin.
public final class ProxyRecorder: Sendable {
    /// What a recording is doing, for the control API.
    public struct Status: Sendable, Codable, Equatable {
        /// nil: the recording of every session.
        public var session: String?
        public var path: String
        public var started: Date
        public var redacted: Bool
        public var maxBytes: Int?
    }

    private struct Active {
        var writer: BundleWriter
        var status: Status
    }

    private struct State {
        var everySession: Active?
        var bySession: [String: Active] = [:]
        var isEmpty: Bool { everySession == nil && bySession.isEmpty }
    }

    private let state = NIOLockedValueBox(State())
    /// True while any recording runs: the one check a request pays when nothing is recorded.
    private let recording = Atomic<Bool>(false)
    private let logger: Logger

    init(logger: Logger) { self.logger = logger }

    /// Starts a bundle at `path` (a `.tar` path packs it into one file when it stops) for one
    /// session, or for every session when `session` is nil.
    @discardableResult
    public func start(session: String?, path: String, redact: Bool = false, maxBytes: Int? = nil) throws(BundleError) -> Status {
        let busy = state.withLockedValue { state in
            session.map { state.bySession[$0] != nil } ?? (state.everySession != nil)
        }
        if busy {
            throw BundleError(path, "\(session.map { "session \"\($0)\"" } ?? "every session") is being recorded already: stop that recording first")
        }
        let writer = try BundleWriter(
            destination: URL(fileURLWithPath: path), source: .proxy, entry: nil, redact: redact, sizeCap: maxBytes,
            archive: path.hasSuffix(".tar"))
        let status = Status(session: session, path: path, started: writer.started, redacted: redact, maxBytes: maxBytes)
        let raced = state.withLockedValue { state -> Bool in
            let taken = session.map { state.bySession[$0] != nil } ?? (state.everySession != nil)
            if taken { return true }
            if let session { state.bySession[session] = Active(writer: writer, status: status) } else {
                state.everySession = Active(writer: writer, status: status)
            }
            recording.store(true, ordering: .releasing)
            return false
        }
        if raced {
            _ = try? writer.finish(stopReason: "a second recording of the same session was refused")
            throw BundleError(path, "\(session.map { "session \"\($0)\"" } ?? "every session") is being recorded already")
        }
        logger.info("recording \(session.map { "session \($0)" } ?? "every session") into \(path)")
        return status
    }

    /// Stops the recording and writes its manifest (and archive); nil when there was none.
    public func stop(session: String?) throws(BundleError) -> BundleManifest? {
        let active = state.withLockedValue { state in
            defer { recording.store(!state.isEmpty, ordering: .releasing) }
            if let session { return state.bySession.removeValue(forKey: session) }
            defer { state.everySession = nil }
            return state.everySession
        }
        guard let active else { return nil }
        let manifest = try active.writer.finish()
        logger.info("recording of \(active.status.session.map { "session \($0)" } ?? "every session") stopped: \(manifest.exchangeCount) exchanges, \(ByteSize.text(manifest.bodyBytes)) of bodies in \(active.status.path)")
        return manifest
    }

    /// Stops every recording (the proxy is shutting down).
    func stopAll() {
        let sessions = state.withLockedValue { Array($0.bySession.keys) }
        for session in [nil] + sessions.map(Optional.some) {
            do { _ = try stop(session: session) } catch { logger.error("recording not finished: \(error)") }
        }
    }

    public func status(session: String?) -> Status? {
        state.withLockedValue { state in session.map { state.bySession[$0]?.status } ?? state.everySession?.status }
    }

    public var all: [Status] {
        state.withLockedValue { state in
            ([state.everySession?.status] + state.bySession.values.map(\.status)).compactMap { $0 }
                .sorted { ($0.session ?? "") < ($1.session ?? "") }
        }
    }

    /// The recordings a request of `session` goes into (usually none: one atomic load). `url` is
    /// built only when something records.
    func captures(session: String, url: @autoclosure () -> String, arrived: Date) -> [RequestCapture] {
        guard recording.load(ordering: .acquiring) else { return [] }
        let writers = state.withLockedValue { state -> [BundleWriter] in
            if state.isEmpty { return [] }
            return [state.everySession?.writer, state.bySession[session]?.writer].compactMap { $0 }
        }
        guard !writers.isEmpty else { return [] }
        let url = url()
        return writers.map { RequestCapture(writer: $0, url: url, session: session, arrived: arrived) }
    }

    /// Called when a writer refused an exchange: a full recording stops (once) and says why.
    func writerFailed(_ writer: BundleWriter, _ error: BundleError) {
        let ended = state.withLockedValue { state -> Status? in
            defer { recording.store(!state.isEmpty, ordering: .releasing) }
            if state.everySession?.writer === writer { defer { state.everySession = nil }; return state.everySession?.status }
            guard let key = state.bySession.first(where: { $0.value.writer === writer })?.key else { return nil }
            return state.bySession.removeValue(forKey: key)?.status
        }
        guard let ended else { return }
        _ = try? writer.finish()
        logger.warning("recording of \(ended.session.map { "session \($0)" } ?? "every session") into \(ended.path) stopped: \(error.problem)")
    }
}
