import Chaos
import Foundation
import PlayerReports
import Records

/// Checks a scenario's expectations against what the proxy recorded and what the player reported.
/// Pure: everything it needs is passed in (no clock, no I/O).
public enum Evaluator {
    /// The expectations that apply to `player`: the documented ones, plus the player's own. A
    /// per-player expectation replaces a documented one with the same check key (its known
    /// behaviour instead of the documented one; `{"not": {check}}` replaces that check).
    /// `documentedOnly`: just the documented ones. File order is kept.
    public static func expectations(for player: String, in expectations: [Expectation],
                                    documentedOnly: Bool) -> [Expectation] {
        let documented = expectations.filter(\.isDocumented)
        if documentedOnly { return documented }
        let replaced = Set(expectations.filter { $0.players.contains(player) }.map(\.check.replacementKey))
        return expectations.filter {
            $0.players.contains(player) || ($0.isDocumented && !replaced.contains($0.check.replacementKey))
        }
    }

    /// Checks `expectations` in order.
    ///
    /// - Parameters:
    ///   - records: the run's session records (any order).
    ///   - reaction: the report read off the same records, made at `runEnded`. VOD: with `lastMSN`
    ///     and `idleThreshold: 0`, so that `stop` says how the requests ended (`fetchedToTheEnd`
    ///     and `stopped` read it; without a stop they cannot be judged). Live: with the target
    ///     duration (reload cadence) and the default idle threshold.
    ///   - player: the player's report; checks of the player fail without one.
    ///   - live: the stream is live: `fetchedToTheEnd` looks for a segment loaded near `runEnded`.
    ///   - runEnded: when the run ended; for a live run, the end of its planned time even when the
    ///     player quit early (a player that quit did not fetch to the end).
    ///   - link: what the session's link offered; nil when it had none: the verdict then has no
    ///     adaptation figures and the checks that need the link cannot be judged.
    public static func evaluate(
        _ expectations: [Expectation], records: [RequestRecord], reaction: ReactionReport, player: PlayerReport?,
        live: Bool, runEnded: Date, link: LinkObservation? = nil
    ) -> Verdict {
        let facts = RunFacts(records: records, reaction: reaction, player: player, live: live, runEnded: runEnded, link: link)
        let results = expectations.map { expectation in
            let finding = facts.judge(expectation.check)
            return ExpectationResult(
                expectation: expectation.words, check: expectation.check.key, documented: expectation.isDocumented,
                players: expectation.players, note: expectation.note, passed: finding.passed,
                observed: finding.observed, evidence: finding.evidence)
        }
        // A link is what is done to the session, as a fault is: its verdict does not say "no fault was injected".
        var verdict = Verdict(results: results, faultInjected: reaction.firstFault != nil || link != nil)
        verdict.adaptation = facts.adaptation
        return verdict
    }
}

/// The outcome of one check.
struct Finding {
    var passed: Bool
    var observed: String
    var evidence: [UInt64] = []
    /// False when the facts to judge by are missing (no player report, no stop in the reaction
    /// report, no judgeable reload cadence): the check fails, and so does its negation.
    var judged = true

    static func unjudged(_ observed: String) -> Finding { Finding(passed: false, observed: observed, judged: false) }
}

/// What one run produced, with the lookups the checks share.
struct RunFacts {
    let records: [RequestRecord]
    let byID: [UInt64: RequestRecord]
    let reaction: ReactionReport
    let player: PlayerReport?
    let live: Bool
    let runEnded: Date
    /// The first fault, else the first failure: what reactions are timed from.
    let trigger: ReactionReport.Incident?
    let triggerWords: String
    /// The variant in use over time, and the adaptation figures when the session had a link.
    let timeline: VariantTimeline
    let adaptation: AdaptationFigures?

    init(records: [RequestRecord], reaction: ReactionReport, player: PlayerReport?, live: Bool, runEnded: Date,
         link: LinkObservation? = nil) {
        self.records = records.streamRecords.sorted { ($0.time, $0.id) < ($1.time, $1.id) }
        byID = Dictionary(records.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.reaction = reaction
        self.player = player
        self.live = live
        self.runEnded = runEnded
        trigger = reaction.firstFault ?? reaction.firstFailure
        triggerWords = reaction.firstFault != nil ? "the first fault" : "the first failure"
        let timeline = VariantTimeline(records: self.records, reaction: reaction)
        self.timeline = timeline
        let said = link == nil ? nil : PlayerTimeline.build(self.records)
        adaptation = link.map {
            AdaptationFigures(timeline: timeline, player: player, cmcdStalls: said?.cmcdStalls, link: $0)
        }
    }

    func judge(_ check: Expectation.Check) -> Finding {
        switch check {
        case .switchedDown(let within): switched(.down, within: within)
        case .switchedUp(let within): switched(.up, within: within)
        case .retried(let low, let high): retried(low, high)
        case .failedOver(let within): failedOver(within: within)
        case .fetchedToTheEnd: live ? fetchedToTheLiveEnd() : fetchedToTheVODEnd()
        case .stopped(let within): stopped(within: within)
        case .reloadCadence(let pace): reloadCadence(pace)
        case .neverRequested(.gapSegments): neverRequestedGapSegments()
        case .skipped(let low, let high): skipped(low, high)
        case .movedPathway(let to, let within): movedPathway(to: to, within: within)
        case .steeringReloads(let low, let high): steeringReloads(low, high)
        case .outcome(let outcomes): outcome(outcomes)
        case .playerError(let kind, let code, let fatal): playerError(kind: kind, code: code, fatal: fatal)
        case .log(let pattern): log(pattern, shouldMatch: true)
        case .logNot(let pattern): log(pattern, shouldMatch: false)
        case .bufferNeverBelow(let floor): bufferNeverBelow(floor)
        case .startupWithin(let limit): startupWithin(limit)
        case .cmcdValid: cmcdValid()
        case .anyOf(let checks): anyOf(checks)
        case .not(let check): negated(check)
        case .switchedDownOnLink(let within): linkSwitchedDown(within: within)
        case .switchedUpOnLink(let within): linkSwitchedUp(within: within)
        case .switches(let low, let high, let perMinute): switchCount(low, high, perMinute: perMinute)
        case .stalls(let low, let high): stallCount(low, high)
        case .utilisation(let low, let high): utilisation(low, high)
        case .overshoot(let atMost): overshoot(atMost: atMost)
        }
    }

    /// True when `id` comes after the trigger (time, then id).
    func isAfterTrigger(_ id: UInt64) -> Bool {
        guard let trigger, let record = byID[id] else { return trigger == nil }
        return (record.time, record.id) > (trigger.time, trigger.record)
    }

    func seconds(_ value: Double) -> String { String(format: "%.1f s", value) }

    /// "within 20s" fails for a reaction `after` seconds after the trigger beyond it.
    func inTime(_ after: Double, _ within: Duration?) -> Bool {
        guard let within else { return true }
        return after <= within.seconds + 0.0005
    }
}

extension RequestRecord {
    /// Status ≥ 400, no status, or an ending other than complete (as the reaction report counts failures).
    var failed: Bool {
        guard let status else { return true }
        return status >= 400 || ending != .complete
    }

    var statusWords: String {
        if let status { return ending == .complete ? "\(status)" : "\(status) \(ending.rawValue)" }
        return ending == .complete ? "no response" : ending.rawValue
    }
}

extension ReactionReport.ReloadCadence {
    /// "variant 2", "rendition 1", "variant 2 (backup copy)".
    var owner: String {
        let name = variant.map { "variant \($0)" } ?? rendition.map { "rendition \($0)" } ?? "an I-frame playlist"
        return name + (copy == "backup" ? " (backup copy)" : "")
    }
}
