/// One response in flight on a link (a flow): the scheduler's name for it.
public struct LinkFlowID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: Int
    public static func < (a: LinkFlowID, b: LinkFlowID) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "flow \(rawValue)" }
}

/// What a new response gets from the link.
public enum LinkOpening: Sendable, Equatable {
    /// Send the response head at `headAt` (the session's clock), then ask for body bytes.
    case open(LinkFlowID, headAt: Duration)
    /// The link is down and the spec says new requests are reset: reset the connection.
    case reset
}

/// The answer to "how many bytes may I send now, and when may I ask next".
public struct LinkGrant: Sendable, Equatable {
    /// Send this many of the bytes waiting, now.
    public var bytes: Int
    /// When not everything could go: ask again at this time (the session's clock). Nil when all
    /// the bytes asked for were granted (ask again when there are more).
    public var askAgainAt: Duration?
    /// Other flows that were held back by their share in this tick and may now take more, because
    /// this one needs less: ask for them now.
    public var wake: [LinkFlowID]

    public init(bytes: Int, askAgainAt: Duration?, wake: [LinkFlowID] = []) {
        self.bytes = bytes
        self.askAgainAt = askAgainAt
        self.wake = wake
    }
}

/// What the link did to one response, for its record.
public struct LinkFlowAccount: Sendable, Equatable {
    /// Latency added before the head (jitter, connection set-up, a bad state or outage at the time).
    public var headDelay: Duration = .zero
    /// Time the response had bytes waiting that the link held back while it was up (its share of
    /// the capacity was used up).
    public var waitedForCapacity: Duration = .zero
    /// Time the response had bytes waiting while the link was down (bad state or outage).
    public var stalled: Duration = .zero
    /// Body bytes the link let through.
    public var bytes: Int64 = 0

    public init() {}
}

/// A flow's state in the scheduler.
struct FlowState: Sendable {
    /// Whether it has bytes waiting (it competes for this tick's capacity).
    var backlogged = false
    /// Bytes granted in the tick that starts at `spentTick`.
    var spent = 0
    var spentTick: Nanos = -1
    /// Set when its fair share, not the tick's capacity, held it back in the tick starting here.
    var cappedTick: Nanos?
    /// Since when it has been held back, and the link's down total then.
    var heldSince: Nanos?
    var heldDownAt: Nanos = 0
    var account = LinkFlowAccount()
}
