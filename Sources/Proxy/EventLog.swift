import Chaos
import Foundation
import Logging
import NIOConcurrencyHelpers

/// A fault the proxy applied: which session, which resource, which rules. Kept in a bounded
/// in-memory log (newest last) and written to the log at info level.
public struct FaultEvent: Sendable {
    public var time: Date
    public var session: String
    public var uri: String
    public var kind: String
    public var variant: Int?
    public var rendition: Int?
    public var msn: Int?
    public var rules: [String]
    public var actions: [String]
}

public final class EventLog: Sendable {
    public static let capacity = 10_000
    private let events = NIOLockedValueBox([FaultEvent]())
    private let logger: Logger

    init(logger: Logger) { self.logger = logger }

    public var recent: [FaultEvent] { events.withLockedValue { $0 } }

    func record(_ exchange: ProxyHandler.Exchange, facts: RequestFacts) {
        let plan = exchange.plan
        var actions: [String] = []
        if let delay = plan.delay { actions.append("delay \(delay)") }
        if let response = plan.response { actions.append("\(response)") }
        actions += plan.content.map(\.action.name)
        let event = FaultEvent(
            time: Date(), session: exchange.session.id, uri: exchange.target, kind: facts.kind.rawValue,
            variant: exchange.tag?.variant, rendition: exchange.tag?.rendition, msn: facts.msn,
            rules: plan.matchedRules.map(\.description), actions: actions)
        events.withLockedValue { events in
            if events.count >= Self.capacity { events.removeFirst(events.count / 2) }
            events.append(event)
        }
        logger.info(
            "fault",
            metadata: [
                "session": "\(event.session)", "kind": "\(event.kind)", "msn": "\(event.msn.map(String.init) ?? "-")",
                "rules": "\(event.rules.joined(separator: ","))", "actions": "\(actions.joined(separator: "; "))",
                "uri": "\(event.uri)",
            ])
    }
}
