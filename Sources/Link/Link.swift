/// A device's downlink with every value known: what `LinkSpec.resolve` makes once the ladder is
/// known (when the spec needs it) and what a `LinkScheduler` runs.
public struct Link: Sendable, Equatable {
    public var capacity: CapacitySchedule
    public var latency: LinkLatency
    public var badState: BadStateModel?
    /// Windows in which the link is down, on the link's clock.
    public var outages: [Outage]
    public var duringOutage: OutagePolicy
    /// Seeds the jitter and the bad-state timeline.
    public var seed: UInt64
    /// How often the capacity is handed out: every response in flight may send its share once per
    /// tick, and a change of capacity takes effect at the next one.
    public var tick: Duration

    public static let defaultTick: Duration = .milliseconds(50)
    /// The shaping granularity the link promises: a tick is at most this long.
    public static let tickRange: ClosedRange<Duration> = .milliseconds(1) ... .milliseconds(50)

    public init(capacity: CapacitySchedule, latency: LinkLatency = .none, badState: BadStateModel? = nil,
                outages: [Outage] = [], duringOutage: OutagePolicy = .wait, seed: UInt64 = 0,
                tick: Duration = Link.defaultTick) {
        self.capacity = capacity
        self.latency = latency
        self.badState = badState
        self.outages = outages
        self.duringOutage = duringOutage
        self.seed = seed
        self.tick = min(max(tick, Self.tickRange.lowerBound), Self.tickRange.upperBound)
    }
}

/// Time added before each response head: `base` give or take up to `jitter` (uniform, drawn from
/// the link's seed), and `newConnection` more when the request came on a new connection (the
/// TCP/TLS set-up round trip).
public struct LinkLatency: Sendable, Equatable {
    public var base: Duration
    public var jitter: Duration
    public var newConnection: Duration

    public static let none = LinkLatency(base: .zero)

    /// `newConnection` defaults to one more round trip: `base`.
    public init(base: Duration, jitter: Duration = .zero, newConnection: Duration? = nil) {
        self.base = base
        self.jitter = jitter
        self.newConnection = newConnection ?? base
    }
}
