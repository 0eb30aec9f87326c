/// Loss-like stalls as a two-state Gilbert–Elliott model: the link alternates between a good state,
/// in which it carries its capacity, and a bad one, in which it carries nothing (a burst of losses
/// that TCP sits out). Each stay lasts an exponentially distributed time with the given mean, so
/// that in the long run the link is bad for `meanBad / (meanGood + meanBad)` of the time.
public struct BadStateModel: Sendable, Equatable {
    public var meanGood: Duration
    public var meanBad: Duration

    public init(meanGood: Duration, meanBad: Duration) {
        self.meanGood = meanGood
        self.meanBad = meanBad
    }

    /// The share of time the link spends in the bad state in the long run.
    public var badFraction: Double {
        Double(meanBad.linkNanos) / Double(meanGood.linkNanos + meanBad.linkNanos)
    }
}

/// A window in which the link is down, from `start` (on the link's clock) for `duration`.
public struct Outage: Sendable, Equatable {
    public var start: Duration
    public var duration: Duration

    public init(start: Duration, duration: Duration) {
        self.start = start
        self.duration = duration
    }
}

/// What a request that arrives while the link is down gets.
public enum OutagePolicy: String, Sendable, CaseIterable {
    /// Its response head waits until the link is up again.
    case wait
    /// Its connection is reset at once.
    case reset
}

/// When the link is down (bad state or outage) on the session's clock, and how much down time has
/// passed: the bad-state timeline is drawn lazily from its own generator, so it is the same
/// whatever the requests do. Holds the stays and outages from the time accounted for onwards only.
struct LinkAvailability: Sendable {
    private struct Stay: Sendable {
        var start: Nanos
        var end: Nanos
        var bad: Bool
    }

    private let model: (good: Double, bad: Double)?
    private var random: SeededRandom
    /// Bad-state stays covering [accounted, generated).
    private var stays: [Stay] = []
    private var generated: Nanos
    /// Whether the next stay drawn is a bad one (the timeline starts good).
    private var nextBad = false
    /// Outage windows, merged and in order, that end after `accounted`.
    private var outages: [(start: Nanos, end: Nanos)] = []
    private(set) var accounted: Nanos
    /// Down time in [0, accounted) (from the start of this timeline).
    private(set) var downTotal: Nanos = 0

    /// At most this many outage windows are kept (a spec's list and cuts made while running).
    static let maximumOutages = 1000

    init(model: BadStateModel?, seed: UInt64, from start: Nanos, downTotal: Nanos = 0) {
        self.downTotal = downTotal
        self.model = model.map { (Double($0.meanGood.linkNanos), Double($0.meanBad.linkNanos)) }
        random = SeededRandom(seed: seed, stream: 1)
        generated = start
        accounted = start
    }

    /// Adds a window in which the link is down; windows that overlap are merged.
    mutating func addOutage(start: Nanos, end: Nanos) {
        guard end > start, end > accounted else { return }
        var all = outages + [(start, end)]
        all.sort { $0.start < $1.start }
        var merged: [(start: Nanos, end: Nanos)] = []
        for window in all {
            if let last = merged.last, window.start <= last.end {
                merged[merged.count - 1].end = max(last.end, window.end)
            } else {
                merged.append(window)
            }
        }
        outages = Array(merged.suffix(Self.maximumOutages))
    }

    private mutating func generate(through t: Nanos) {
        guard let model else { return }
        while generated <= t {
            let bad = nextBad
            nextBad.toggle()
            let length = max(Nanos(1000), Nanos(random.exponential(mean: bad ? model.bad : model.good).rounded()))
            stays.append(Stay(start: generated, end: generated + length, bad: bad))
            generated += length
        }
    }

    /// The down windows within [start, end), merged and in order.
    mutating func downWindows(from start: Nanos, to end: Nanos) -> [(start: Nanos, end: Nanos)] {
        guard end > start, model != nil || !outages.isEmpty else { return [] }
        generate(through: end)
        var windows: [(start: Nanos, end: Nanos)] = []
        for stay in stays where stay.bad && stay.end > start && stay.start < end {
            windows.append((max(stay.start, start), min(stay.end, end)))
        }
        for outage in outages where outage.end > start && outage.start < end {
            windows.append((max(outage.start, start), min(outage.end, end)))
        }
        guard windows.count > 1 else { return windows }
        windows.sort { $0.start < $1.start }
        var merged: [(start: Nanos, end: Nanos)] = [windows[0]]
        for window in windows.dropFirst() {
            if window.start <= merged[merged.count - 1].end {
                merged[merged.count - 1].end = max(merged[merged.count - 1].end, window.end)
            } else {
                merged.append(window)
            }
        }
        return merged
    }

    /// The up windows within [start, end).
    mutating func upWindows(from start: Nanos, to end: Nanos) -> [(start: Nanos, end: Nanos)] {
        var up: [(start: Nanos, end: Nanos)] = []
        var cursor = start
        for down in downWindows(from: start, to: end) {
            if down.start > cursor { up.append((cursor, down.start)) }
            cursor = max(cursor, down.end)
        }
        if cursor < end { up.append((cursor, end)) }
        return up
    }

    mutating func isDown(at t: Nanos) -> Bool { !downWindows(from: t, to: t + 1).isEmpty }

    /// Whether `t` falls in an outage window (not a bad-state stay).
    func inOutage(at t: Nanos) -> Bool { outages.contains { $0.start <= t && t < $0.end } }

    /// The first time at or after `t` at which the link is up.
    mutating func nextUp(from t: Nanos) -> Nanos {
        var time = t
        while true {
            var moved = false
            if let outage = outages.first(where: { $0.start <= time && time < $0.end }) {
                time = outage.end
                moved = true
            }
            generate(through: time)
            if let stay = stays.last(where: { $0.start <= time && time < $0.end }), stay.bad {
                time = stay.end
                moved = true
            }
            if !moved { return time }
        }
    }

    /// Counts the down time up to `t` (times before `accounted` are not counted again) and
    /// forgets what lies before it.
    mutating func advance(to t: Nanos) {
        guard t > accounted else { return }
        for window in downWindows(from: accounted, to: t) { downTotal += window.end - window.start }
        accounted = t
        if let firstKept = stays.firstIndex(where: { $0.end > t }) {
            stays.removeFirst(firstKept)
        } else if !stays.isEmpty {
            stays.removeAll(keepingCapacity: true)
        }
        outages.removeAll { $0.end <= t }
    }
}
