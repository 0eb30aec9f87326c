import Chaos
import Foundation
import Link

extension ProxyControl {
    /// A session's link as the control plane shows it: what runs, where from, and its history.
    public struct LinkView: Sendable {
        public var snapshot: SessionLink.Snapshot
        /// The variants' BANDWIDTH in the master's order; empty before a master was fetched.
        public var ladder: [Int]
        /// The wall-clock time of the session clock's `snapshot.now`.
        public var at: Date
    }

    /// The link of a live session; nil when there is no such session.
    public func link(session id: String) -> LinkView? {
        guard let session = server.sessions.existing(id) else { return nil }
        let ladder = session.memory.withLockedValue { Session.ladder($0.catalog) } ?? []
        return LinkView(snapshot: session.link.snapshot(), ladder: ladder, at: Date())
    }

    /// The link the control API set on a live session (nil inside: none).
    public func ownLink(session id: String) -> LinkChoice?? {
        server.sessions.existing(id).map(\.ownLink)
    }

    /// Sets (nil: clears) a live session's own link; false when there is no such session. Throws
    /// when the spec cannot run on the session's ladder (the running link is kept).
    public func setLink(_ choice: LinkChoice?, session id: String) throws(LinkSpecError) -> Bool {
        guard let session = server.sessions.existing(id) else { return false }
        try session.setLink(choice)
        return true
    }

    /// Takes a live session's link down for `duration`: nil when there is no such session, false
    /// when it has no link running.
    public func cutLink(session id: String, for duration: Duration) -> Bool? {
        server.sessions.existing(id).map { $0.link.cut(for: duration) }
    }
}
