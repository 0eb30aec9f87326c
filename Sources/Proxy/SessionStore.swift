import Chaos
import Foundation
import NIOConcurrencyHelpers

/// One device's view of the proxy: its own clock and counters. Created by its first request and
/// forgotten after `idleTimeout` without requests.
public final class Session: Sendable {
    public let id: String
    public let startedAt: Date
    private let counters = NIOLockedValueBox(Counters())
    /// Rule counters, clock origin and playlist history (Chaos) plus what the session's playlists
    /// taught the proxy about variants and segments.
    let memory: NIOLockedValueBox<Memory>

    struct Memory {
        var rules: SessionState
        var catalog = SessionCatalog()
    }

    struct Counters {
        var lastSeen: Date = .distantPast
        var requests = 0
    }

    init(id: String, now: Date) {
        self.id = id
        self.startedAt = now
        self.memory = NIOLockedValueBox(Memory(rules: SessionState(sessionID: id)))
        counters.withLockedValue { $0.lastSeen = now }
    }

    public var requestCount: Int { counters.withLockedValue { $0.requests } }
    public var lastSeen: Date { counters.withLockedValue { $0.lastSeen } }

    func touch(now: Date) {
        counters.withLockedValue {
            $0.lastSeen = now
            $0.requests += 1
        }
    }
}

/// The live sessions, keyed by id. Requests without a `/s/<id>/` prefix share `defaultID`.
public final class SessionStore: Sendable {
    public static let defaultID = "default"
    public let idleTimeout: TimeInterval
    private let now: @Sendable () -> Date
    private let sessions = NIOLockedValueBox([String: Session]())

    public init(idleTimeout: TimeInterval, now: @escaping @Sendable () -> Date = Date.init) {
        self.idleTimeout = idleTimeout
        self.now = now
    }

    /// The session for `id` (created on first use), with this request counted.
    public func session(for id: String?) -> Session {
        let now = now()
        let session = sessions.withLockedValue { sessions in
            let id = id ?? Self.defaultID
            if let existing = sessions[id], now.timeIntervalSince(existing.lastSeen) <= idleTimeout {
                return existing
            }
            sessions = sessions.filter { now.timeIntervalSince($0.value.lastSeen) <= idleTimeout }
            let created = Session(id: id, now: now)
            sessions[id] = created
            return created
        }
        session.touch(now: now)
        return session
    }

    public var all: [Session] {
        let now = now()
        return sessions.withLockedValue { $0.values.filter { now.timeIntervalSince($0.lastSeen) <= idleTimeout } }
            .sorted { $0.id < $1.id }
    }
}
