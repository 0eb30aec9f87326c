import Foundation
import Link
import PlayerReports
import Records
@testable import Verdicts

/// A player on the demo origin's three variants (400 kbit/s, 800 kbit/s, 1.6 Mbit/s) behind a link:
/// the link's history made by the link's own scheduler, and the records of a player that follows
/// a plan of variants. The session clock's zero is the traffic's start.
struct LinkRun {
    static let ladder = [400_000, 800_000, 1_600_000]

    var traffic = Traffic()
    var buckets: [LinkBucket] = []
    var until: Duration?

    /// The capacity `steps` (seconds, bit/s) from 0, `outages` (start, seconds), the history taken at `until`.
    init(steps: [(Double, Int)], outages: [(Double, Double)] = [], until seconds: Double) {
        let link = Link(
            capacity: .steps(steps.map { (at: Self.duration($0.0), rate: LinkRate(bitsPerSecond: Int64($0.1))) }),
            outages: outages.map { Outage(start: Self.duration($0.0), duration: Self.duration($0.1)) })
        var scheduler = LinkScheduler(link: link)
        buckets = scheduler.history(now: Self.duration(seconds))
        until = Self.duration(seconds)
    }

    static func duration(_ seconds: Double) -> Duration { .milliseconds(Int64((seconds * 1000).rounded())) }

    /// The master and the first variant's playlist at 0, then for each phase from its time on:
    /// the new variant's playlist (from the second phase on) and a segment every 2 s, the first
    /// 0.2 s after the phase starts, until the next phase (or `end`).
    mutating func play(_ phases: [(at: Double, variant: Int)], end: Double) {
        traffic.start(variant: phases[0].variant)
        var msn = 0
        for (index, phase) in phases.enumerated() {
            let next = index + 1 < phases.count ? phases[index + 1].at : end
            var time = phase.at + (index == 0 ? 0.5 : 0.2)
            if index > 0 { traffic.media(phase.at, variant: phase.variant) }
            while time < next {
                traffic.segment(time, variant: phase.variant, msn: msn)
                msn += 1
                time += 2
            }
        }
    }

    var observation: LinkObservation {
        LinkObservation(buckets: buckets, clockZero: traffic.start, ladder: Self.ladder, until: until)
    }

    var reaction: ReactionReport { traffic.report(now: 100) }

    func figures(player: PlayerReport? = nil, link: LinkObservation? = nil) -> AdaptationFigures {
        AdaptationFigures.measure(records: traffic.records, reaction: reaction, player: player, link: link ?? observation)
    }

    /// The records' id of the segment requested at `time`.
    func segment(at time: Double) -> UInt64? {
        traffic.records.first { $0.kind == .segment && $0.time == traffic.at(time) }?.id
    }
}
