import Chaos
import Foundation
import Records

/// The checks of a player's adaptation to the session's link. Those that need the link
/// (`switchedDown`/`switchedUp` timed from it, `utilisation`, `overshoot`) cannot be judged
/// without one; `switches` reads the records alone and `stalls` the player's report (or its CMCD).
extension RunFacts {
    /// Every fall of the link below the variant in use answered: a down-switch within `within` of
    /// it, or, with `within`, a link back above the variant before `within` ran out.
    func linkSwitchedDown(within: Duration?) -> Finding {
        if let missing = adaptationMissing { return missing }
        guard let falls = adaptation?.falls, !falls.isEmpty else {
            return .unjudged("the link never fell below the variant in use for \(settleWords) or more while the player fetched segments (nothing to go down from)")
        }
        return judgeEach(falls, within: within, delay: \.wentDownAfter, lasted: \.below, words: \.downWords,
                         switchRecord: \.downSwitch, name: "falls of the link below the variant in use")
    }

    /// Every recovery from such a fall, with the player below the variant it had left, answered by
    /// an up-switch within `within` of it, or, with `within`, a link that fell again before then.
    func linkSwitchedUp(within: Duration?) -> Finding {
        if let missing = adaptationMissing { return missing }
        let falls = adaptation?.falls ?? []
        let recoveries = falls.filter(\.judgesUp)
        guard !recoveries.isEmpty else {
            let why = falls.isEmpty
                ? "the link never fell below the variant in use for \(settleWords) or more"
                : falls.allSatisfy { $0.recoveredAfter == nil } ? "the link did not recover while the player fetched segments"
                : "the player was not below the variant it had been on when the link recovered"
            return .unjudged(why + " (nothing to go back up from)")
        }
        return judgeEach(recoveries, within: within, delay: \.wentUpAfter, lasted: { $0.recoveredFor ?? 0 },
                         words: { $0.upWords(subject: "the link") }, switchRecord: \.upSwitch, name: "recoveries of the link")
    }

    /// Each event passes when the player switched within `within` (any time before the event ended
    /// without it), or, with `within`, when the event ended before `within` did.
    private func judgeEach(_ events: [AdaptationFigures.Fall], within: Duration?, delay: (AdaptationFigures.Fall) -> Double?,
                           lasted: (AdaptationFigures.Fall) -> Double, words: (AdaptationFigures.Fall) -> String,
                           switchRecord: (AdaptationFigures.Fall) -> UInt64?, name: String) -> Finding {
        func answered(_ event: AdaptationFigures.Fall) -> Bool {
            if let delay = delay(event) { return inTime(delay, within) }
            return within.map { lasted(event) <= $0.seconds + 0.0005 } ?? false
        }
        let failed = events.filter { !answered($0) }
        let expected = within.map { "; expected within \(seconds($0.seconds))" } ?? ""
        var evidence: [UInt64] = []
        for event in (failed.isEmpty ? events : failed) {
            guard let id = switchRecord(event), let change = reaction.switches.first(where: { $0.records.last == id }) else { continue }
            evidence += change.records
        }
        if events.count == 1 {
            return Finding(passed: failed.isEmpty, observed: words(events[0]) + (failed.isEmpty ? "" : expected), evidence: evidence)
        }
        let named = failed.isEmpty ? events : failed
        let list = named.prefix(4).map { "at \(seconds($0.at)): \(words($0))" }.joined(separator: "; ") + (named.count > 4 ? "; …" : "")
        let head = failed.isEmpty ? "all \(events.count) \(name) answered" : "\(failed.count) of \(events.count) \(name) not answered in time"
        return Finding(passed: failed.isEmpty, observed: head + ": " + list + (failed.isEmpty ? "" : expected), evidence: evidence)
    }

    /// Up and down switches over the player's fetching, or per minute of it.
    func switchCount(_ low: Double?, _ high: Double?, perMinute: Bool) -> Finding {
        guard !timeline.isEmpty else { return .unjudged("no variant segment was requested") }
        let count = timeline.switches.count
        let value = perMinute ? timeline.switchesPerMinute : Double(count)
        let passed = value >= (low ?? 0) - 0.0005 && value <= (high ?? .infinity) + 0.0005
        var text = count == 0
            ? "no switch: variant \(timeline.spans[0].variant) throughout"
            : "\(count) switch\(count == 1 ? "" : "es") in \(seconds(timeline.seconds)) (\(AdaptationFigures.number(timeline.switchesPerMinute)) a minute)"
        if count > 0 {
            let listed = timeline.switches.prefix(6).map { "\($0.direction.rawValue) \($0.from)→\($0.to)" }
            text += ": " + listed.joined(separator: ", ") + (count > 6 ? ", …" : "")
        }
        return Finding(passed: passed, observed: text, evidence: Array(timeline.switches.flatMap(\.records).prefix(24)))
    }

    /// Stalls in the player's report; when its driver reported none (a player that cannot tell,
    /// or no report at all) and the player said some through CMCD, those (`cmcdStalls`). The
    /// finding says which source counted.
    func stallCount(_ low: Int?, _ high: Int?) -> Finding {
        func inBounds(_ count: Int) -> Bool { count >= (low ?? 0) && count <= (high ?? .max) }
        let cmcd = cmcdStalls
        if let player, AdaptationFigures.countsReport(player, over: cmcd) {
            let stalls = player.stalls
            let text = AdaptationFigures.stallWords(count: stalls.count, seconds: stalls.reduce(0) { $0 + max(0, $1.duration) })
                + Self.listed(stalls.map { "at \(seconds($0.at)) for \(seconds($0.duration))" })
            return Finding(passed: inBounds(stalls.count), observed: text + " (the player's report)")
        }
        guard let cmcd else { return .unjudged("no player report, and no request carried CMCD") }
        let why = player == nil ? "no player report" : "its driver reported none"
        guard !cmcd.isEmpty else { return Finding(passed: inBounds(0), observed: "no stall (the player's CMCD said none; \(why))") }
        let durations = cmcd.compactMap(\.duration)
        let count = durations.count == cmcd.count
            ? AdaptationFigures.stallWords(count: cmcd.count, seconds: durations.reduce(0, +))
            : "\(cmcd.count) stall\(cmcd.count == 1 ? "" : "s")"
        let text = count + Self.listed(cmcd.map { "at \(seconds($0.time))" + ($0.duration.map { " for \(seconds($0))" } ?? "") })
            + " (the player's CMCD, \(cmcd[0].source); \(why))"
        return Finding(passed: inBounds(cmcd.count), observed: text, evidence: Array(cmcd.map(\.record).prefix(24)))
    }

    /// The stalls the player said through CMCD, one per stall (`PlayerTimeline.saidStalls`); nil
    /// when no request carried CMCD.
    var cmcdStalls: [PlayerTimeline.Stall]? { playerTimeline.cmcdStalls }

    /// " (at 3.0 s for 1.2 s, …)": the first four.
    static func listed(_ items: [String]) -> String {
        items.isEmpty ? "" : " (" + items.prefix(4).joined(separator: ", ") + (items.count > 4 ? ", …" : "") + ")"
    }

    func utilisation(_ low: Double?, _ high: Double?) -> Finding {
        if let missing = adaptationMissing { return missing }
        guard let figures = adaptation, let share = figures.utilisation else {
            return .unjudged("no time to weigh: the link's history and the player's fetching do not overlap, or the capacity was 0 throughout")
        }
        let passed = share >= (low ?? 0) - 0.00005 && share <= (high ?? 1) + 0.00005
        let cap = figures.topBandwidth.map { "; the capacity counted up to the top variant's \(Self.rate($0))" } ?? ""
        return Finding(passed: passed, observed: "used \(AdaptationFigures.percent(share)) of the link over \(seconds(figures.seconds)) of fetching\(cap)")
    }

    func overshoot(atMost: Duration) -> Finding {
        if let missing = adaptationMissing { return missing }
        guard let figures = adaptation, figures.seconds > 0 else {
            return .unjudged("no time to judge: the link's history and the player's fetching do not overlap")
        }
        let text = figures.overshoot > 0 ? figures.overshootWords : "never on a variant the link could not carry"
        return Finding(passed: figures.overshoot <= atMost.seconds + 0.0005, observed: text + " (of \(seconds(figures.seconds)) of fetching)")
    }

    /// Why a check that needs the link cannot be judged, or nil when it can.
    private var adaptationMissing: Finding? {
        if adaptation == nil { return .unjudged("the session had no link (the check needs the link's history)") }
        if timeline.isEmpty { return .unjudged("no variant segment was requested") }
        return nil
    }

    private var settleWords: String { seconds(AdaptationFigures.settle) }

    /// "1.6 Mbps", "800 kbps".
    static func rate(_ bitsPerSecond: Int) -> String {
        if bitsPerSecond >= 1_000_000 { return AdaptationFigures.number(Double(bitsPerSecond) / 1e6) + " Mbps" }
        return AdaptationFigures.number(Double(bitsPerSecond) / 1e3) + " kbps"
    }
}
