/// A stall the player had, known from outside its CMCD: its driver reported it, or a segment was
/// held (a hang, the link down) longer than the buffer the player last claimed. Seconds since the
/// session began, as `CMCDObservation.time`.
public struct CMCDKnownStall: Sendable, Hashable {
    /// When the buffer ran dry.
    public var time: Double
    /// When it was over at the latest we know (the held request's end, the driver's stall end).
    public var end: Double
    /// Where it is known from, in words: "segment 12 held 8.0 s with 1.2 s of buffer claimed".
    public var cause: String

    public init(time: Double, end: Double, cause: String) {
        self.time = time
        self.end = max(time, end)
        self.cause = cause
    }
}

/// A stall the player never said in its CMCD: no request after it carried `bs` (v1), `sta=r`, a
/// `bsd` above 0 or a grown `bsa` (v2).
public struct CMCDUnsaidStall: Sendable, Hashable {
    public var stall: CMCDKnownStall
    /// The first request after the stall that carried CMCD (its index among the observations): the
    /// one that should have said it.
    public var firstRequestAfter: Int
    /// The version that request said it used.
    public var version: Int
}

extension CMCDConformance {
    /// Stalls that start within this many seconds of the previous one's end are one episode: a
    /// retried segment that hangs again is one stall, said once.
    public static let stallJoiningSeconds = 1.0

    /// The known stalls the player never said. A stall is judged only when CMCD was being sent: a
    /// request with CMCD at or before it and one after it. Stalls with no request with CMCD between
    /// them are judged together (one request after both may say both). Pure.
    public static func unsaidStalls(_ observations: [CMCDObservation], stalls: [CMCDKnownStall]) -> [CMCDUnsaidStall] {
        let withCMCD = observations.indices.filter { observations[$0].cmcd != nil }
        guard let firstSent = withCMCD.first.map({ observations[$0].time }) else { return [] }
        var episodes: [CMCDKnownStall] = []
        for stall in stalls.sorted(by: { ($0.time, $0.end) < ($1.time, $1.end) }) {
            if let last = episodes.last, stall.time <= last.end + stallJoiningSeconds {
                episodes[episodes.count - 1].end = max(last.end, stall.end)
            } else {
                episodes.append(stall)
            }
        }
        // The requests are in the order they were made: one cursor walks them past each stall,
        // keeping the latest starvation count (`bsa`) seen.
        var unsaid: [CMCDUnsaidStall] = []
        var pending: [CMCDKnownStall] = []
        var cursor = 0, bsaBefore = 0
        func requests(until time: Double) -> [Int] {
            var taken: [Int] = []
            while cursor < withCMCD.count, observations[withCMCD[cursor]].time <= time {
                taken.append(withCMCD[cursor])
                cursor += 1
            }
            return taken
        }
        for (number, episode) in episodes.enumerated() where episode.time >= firstSent {
            for index in requests(until: episode.time) { bsaBefore = Self.starvationCount(observations[index].cmcd!) ?? bsaBefore }
            pending.append(episode)
            let after = requests(until: number + 1 < episodes.count ? episodes[number + 1].time : .infinity)
            // No request with CMCD before the next stall: the requests after that one may say both.
            guard let first = after.first else { continue }
            if !after.contains(where: { Self.saysStarvation(observations[$0].cmcd!, countBefore: bsaBefore) }) {
                unsaid += pending.map { CMCDUnsaidStall(stall: $0, firstRequestAfter: first, version: observations[first].cmcd!.version) }
            }
            for index in after { bsaBefore = Self.starvationCount(observations[index].cmcd!) ?? bsaBefore }
            pending = []
        }
        return unsaid
    }

    /// The stalls never said as one issue (`starvationNotSent`, key `bs`, or `sta` when the player
    /// said it uses v2): how many, named by the first, at the first request after it; nil when the
    /// player said them all.
    public static func unsaidStallIssue(_ observations: [CMCDObservation], stalls: [CMCDKnownStall]) -> CMCDIssue? {
        let unsaid = unsaidStalls(observations, stalls: stalls)
        guard let first = unsaid.first else { return nil }
        return CMCDIssue(
            kind: .starvationNotSent(cause: first.stall.cause, at: first.stall.time), key: first.version >= 2 ? "sta" : "bs",
            objectType: nil, count: unsaid.count, firstRequest: first.firstRequestAfter, firstTime: observations[first.firstRequestAfter].time)
    }

    /// `bs`, `sta=r`, a `bsd` above 0, or a `bsa` above the count before the stall.
    static func saysStarvation(_ cmcd: CMCDData, countBefore: Int) -> Bool {
        if cmcd.bs || cmcd.sta == .rebuffering { return true }
        if let durations = cmcd.bsd, durations.contains(where: { $0.value > 0 }) { return true }
        return (starvationCount(cmcd) ?? 0) > countBefore
    }

    static func starvationCount(_ cmcd: CMCDData) -> Int? { cmcd.bsa?.map(\.value).max() }
}
