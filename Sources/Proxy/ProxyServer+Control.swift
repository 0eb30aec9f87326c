import Addressing
import Chaos
import Foundation

/// What the control plane may do to a running proxy. Every change takes effect on the next
/// request of the sessions it concerns; nothing in flight is touched.
extension ProxyServer {
    /// A session as the control API shows it.
    public struct SessionSummary: Sendable, Equatable {
        public var id: String
        public var startedAt: Date
        public var requestCount: Int
        /// The scenario set through the API, by name.
        public var scenario: String?
    }

    public func summary(of session: Session) -> SessionSummary {
        SessionSummary(id: session.id, startedAt: session.startedAt, requestCount: session.requestCount, scenario: session.scenario?.name)
    }

    /// Creates the session `id` (or finds it) and sets its scenario. Its clock and counters for that
    /// scenario start now.
    @discardableResult
    public func openSession(_ id: String, scenario: Scenario?) -> Session {
        let session = sessions.create(id)
        session.setScenario(scenario, now: clock.now())
        return session
    }

    /// Sets or clears the scenario of a live session; false when there is no such session.
    @discardableResult
    public func setScenario(_ scenario: Scenario?, session id: String) -> Bool {
        guard let session = sessions.existing(id) else { return false }
        session.setScenario(scenario, now: clock.now())
        return true
    }

    /// Sets or clears the scenario applied to every session.
    public func setScenarioForEverySession(_ scenario: Scenario?) {
        control.set(scenario, now: clock.now())
    }

    /// The scenario applied to every session through the API.
    public var scenarioForEverySession: Scenario? { control.scenario }

    /// Whether `id` may name a session (1–64 letters, digits, '.', '_' or '-').
    public static func isValidSessionID(_ id: String) -> Bool { ProxyPath.isValidName(id) }

    /// The URL prefix a device uses for the session (`/s/<id>`), to put after `http://host:port`.
    public static func sessionPath(_ id: String) -> String { "/s/" + id }
}
