import Foundation
import Link
import PlayerReports
import Records
import Testing
@testable import Verdicts

/// The figures of a player's adaptation, from records of a planned player and a link history made
/// by the link's scheduler. Variants: 0 = 400 kbit/s, 1 = 800 kbit/s, 2 = 1.6 Mbit/s.
@Suite struct AdaptationFiguresTests {
    /// 4 Mbit/s, 600 kbit/s from 30 s, 4 Mbit/s again from 60 s. The player on variant 2 goes down
    /// to 0 at 33.4 s (its playlist) and back up to 2 at 71 s; its last segment at 89.2 s.
    static func stepDownAndBack() -> LinkRun {
        var run = LinkRun(steps: [(0, 4_000_000), (30, 600_000), (60, 4_000_000)], until: 90)
        run.play([(0, 2), (33.4, 0), (71, 2)], end: 90)
        return run
    }

    /// A square wave, 2 Mbit/s and 600 kbit/s every 10 s; the player goes down 2 s, 6 s and 2 s after
    /// the three falls and back up 3 s and 1 s after the two recoveries.
    static func squareWave() -> LinkRun {
        var run = LinkRun(steps: [(0, 2_000_000), (10, 600_000), (20, 2_000_000), (30, 600_000), (40, 2_000_000), (50, 600_000)],
                          until: 62)
        run.play([(0, 2), (12, 0), (23, 2), (36, 0), (41, 2), (52, 0)], end: 60)
        return run
    }

    static let stalls = PlayerReport(player: "hlsjs", outcome: .played,
                                     stalls: [.init(at: 31, duration: 1.5), .init(at: 33, duration: 2.6)])

    @Test func aStepDownBelowTheVariantAndBackUp() throws {
        let run = Self.stepDownAndBack()
        let figures = run.figures(player: Self.stalls)
        #expect(figures.from == 0.5 && figures.to == 89.35)
        #expect(figures.variants == [.init(at: 0.5, variant: 2, bandwidth: 1_600_000), .init(at: 33.4, variant: 0, bandwidth: 400_000),
                                     .init(at: 71, variant: 2, bandwidth: 1_600_000)])
        #expect(figures.switches == 2 && figures.switchesPerMinute == 1.35)
        let fall = try #require(figures.falls.first)
        #expect(figures.falls.count == 1)
        #expect(fall == AdaptationFigures.Fall(
            at: 30, variant: 2, bandwidth: 1_600_000, capacity: 600_000, below: 30, wentDownAfter: 3.4, downSwitch: run.segment(at: 33.6),
            recoveredAfter: 30, neededUp: true, recoveredFor: 29.35, wentUpAfter: 11, upSwitch: run.segment(at: 71.2)))
        #expect(figures.stalls == 2 && figures.stallSeconds == 4.1)
        // On variant 2 from the fall to the down-switch.
        #expect(figures.overshoot == 3.4)
        // (29.5 × 1 + 3.4 × 1 + 26.6 × 400/600 + 11 × 400/1600 + 18.35 × 1) / 88.85
        #expect(figures.utilisation == 0.8074)
        #expect(figures.topBandwidth == 1_600_000)
        #expect(figures.words == "went down 3.4 s after the link fell below variant 2; back up 11.0 s after it recovered; "
            + "2 stalls, 4.1 s in all; used 81 % of the link; 2 switches (1.35 a minute); 3.4 s on a variant the link could not carry")
    }

    /// Without stalls from the player's driver, the stalls its CMCD said are the figures' (one per
    /// stall), and the words say where they came from; the driver's report wins when it has any.
    @Test func stallsFromCMCDWhenTheReportHasNone() throws {
        let run = Self.stepDownAndBack()
        let said = [run.segment(at: 33.6), run.segment(at: 37.6)].compactMap { $0 }
        let records = run.traffic.records.map { record in
            var record = record
            record.cmcd = .init(text: said.contains(record.id) ? "bl=0,bs,ot=v" : "bl=4000,ot=v", carriages: ["query"], findings: nil)
            return record
        }
        let fromCMCD = AdaptationFigures.measure(records: records, reaction: run.reaction, player: nil, link: run.observation)
        #expect(fromCMCD.stalls == 2 && fromCMCD.stallSeconds == 0 && fromCMCD.stallSource == .cmcd)
        #expect(fromCMCD.words.contains("; 2 stalls, 0.0 s in all (the player's CMCD); "), "\(fromCMCD.words)")
        let quietDriver = AdaptationFigures.measure(
            records: records, reaction: run.reaction, player: PlayerReport(player: "hlsjs", outcome: .played), link: run.observation)
        #expect(quietDriver.stalls == 2 && quietDriver.stallSource == .cmcd)
        let reported = AdaptationFigures.measure(records: records, reaction: run.reaction, player: Self.stalls, link: run.observation)
        #expect(reported.stalls == 2 && reported.stallSeconds == 4.1 && reported.stallSource == .report)
        #expect(run.figures().stalls == nil, "no report and no CMCD: nothing to count")
    }

    @Test func aSquareWaveWithAnOscillatingPlayer() {
        let figures = Self.squareWave().figures()
        #expect(figures.falls.map(\.at) == [10, 30, 50])
        #expect(figures.falls.map(\.wentDownAfter) == [2, 6, 2])
        #expect(figures.falls.map(\.recoveredAfter) == [10, 10, nil])
        #expect(figures.falls.map(\.wentUpAfter) == [3, 1, nil])
        #expect(figures.falls.map(\.recoveredFor) == [10, 10, nil])
        #expect(figures.falls[2].below == 8.35)
        #expect(figures.switches == 5 && figures.switchesPerMinute == 5.19)
        #expect(figures.overshoot == 10)
        #expect(figures.stalls == nil && figures.stallSeconds == nil)
        #expect(figures.words.hasPrefix("went down 2.0–6.0 s after the link fell below the variant in use (3 times); "
            + "back up 1.0–3.0 s after it recovered (2 times); used "))
    }

    @Test func aPlayerThatNeverSwitches() {
        var run = LinkRun(steps: [(0, 4_000_000)], until: 60)
        run.play([(0, 1)], end: 60)
        let figures = run.figures()
        #expect(figures.switches == 0 && figures.switchesPerMinute == 0)
        #expect(figures.falls.isEmpty && figures.overshoot == 0)
        #expect(figures.utilisation == 0.5)
        #expect(figures.words == "used 50 % of the link; no switch")
    }

    @Test func overshootIsTimeAboveTheCapacityWithALowerVariantToGoTo() {
        var run = LinkRun(steps: [(0, 1_000_000)], until: 30)
        run.play([(0, 0), (10, 2), (20, 1)], end: 30)
        let figures = run.figures()
        #expect(figures.falls.isEmpty, "the capacity never changed: the player went up too far, the link did not fall")
        #expect(figures.overshoot == 10)
        // (9.5 × 0.4 + 10 × 1 + 8.35 × 0.8) / 27.85
        #expect(figures.utilisation == 0.7354)

        // Below the lowest variant, the lowest is no overshoot; anything above it is.
        var starved = LinkRun(steps: [(0, 4_000_000), (10, 200_000)], until: 30)
        starved.play([(0, 0), (20, 1)], end: 30)
        #expect(starved.figures().overshoot == 8.35)
    }

    @Test func utilisationIsCappedAtTheTopVariant() {
        var top = LinkRun(steps: [(0, 20_000_000)], until: 30)
        top.play([(0, 2)], end: 30)
        #expect(top.figures().utilisation == 1)
        var middle = LinkRun(steps: [(0, 20_000_000)], until: 30)
        middle.play([(0, 1)], end: 30)
        #expect(middle.figures().utilisation == 0.5)
    }

    /// Down time is the stalls' business: utilisation and overshoot weigh the link's up time only,
    /// and falls are read off the capacity set.
    @Test func downTimeIsLeftOut() {
        var run = LinkRun(steps: [(0, 4_000_000), (30, 1_000_000)], outages: [(30, 20)], until: 60)
        run.play([(0, 1)], end: 60)
        let figures = run.figures()
        // (29.5 × 0.5 + 8.65 × 0.8) / (29.5 + 8.65): the 20 s outage weighs nothing.
        #expect(figures.utilisation == 0.568)
        var out = LinkRun(steps: [(0, 4_000_000)], outages: [(30, 10)], until: 60)
        out.play([(0, 2)], end: 60)
        #expect(out.figures().falls.isEmpty && out.figures().overshoot == 0 && out.figures().utilisation == 1)
    }

    @Test func dipsShorterThanTheSettleTimeAreNoFalls() {
        // Half a second at 600 kbit/s: overshoot for that half second, no fall.
        var short = LinkRun(steps: [(0, 4_000_000), (30, 600_000), (30.5, 4_000_000)], until: 60)
        short.play([(0, 2)], end: 60)
        #expect(short.figures().falls.isEmpty)
        #expect(short.figures().overshoot == 0.5)
        // 100 ms at 0 inside a bucket: the bucket's average (2.4 Mbit/s) still carries variant 2.
        var blip = LinkRun(steps: [(0, 4_000_000), (30.1, 0), (30.2, 4_000_000)], until: 60)
        blip.play([(0, 2)], end: 60)
        #expect(blip.figures().falls.isEmpty && blip.figures().overshoot == 0)
        // A whole second below is a fall, though the player need not have moved.
        var second = LinkRun(steps: [(0, 4_000_000), (30, 600_000), (31, 4_000_000)], until: 60)
        second.play([(0, 2)], end: 60)
        let fall = second.figures().falls
        #expect(fall.map(\.at) == [30] && fall.map(\.below) == [1] && fall.map(\.recoveredAfter) == [1])
        #expect(fall.map(\.wentDownAfter) == [nil] && fall.map(\.neededUp) == [false])
        // Half a second back above inside a fall neither ends it nor starts another.
        var flicker = LinkRun(steps: [(0, 4_000_000), (30, 600_000), (40, 4_000_000), (40.5, 600_000)], until: 60)
        flicker.play([(0, 2)], end: 60)
        #expect(flicker.figures().falls.map(\.at) == [30] && flicker.figures().falls.map(\.recoveredAfter) == [nil])
    }

    /// A fall of the variant the player went down to is a fall of its own; the lowest has none.
    @Test func aFallBelowTheVariantGoneDownTo() {
        var run = LinkRun(steps: [(0, 4_000_000), (10, 1_000_000), (20, 500_000), (30, 300_000)], until: 40)
        run.play([(0, 2), (12, 1), (22, 0)], end: 40)
        let falls = run.figures().falls
        #expect(falls.map(\.variant) == [2, 1])
        #expect(falls.map(\.at) == [10, 20])
        #expect(falls.map(\.wentDownAfter) == [2, 2])
    }

    /// The bucket under way ends at `until`: its capacity is what was offered up to then.
    @Test func theLastBucketEndsAtUntil() {
        var run = LinkRun(steps: [(0, 4_000_000)], until: 29.9)
        run.play([(0, 2)], end: 30)
        #expect(run.figures().utilisation == 1)
        var whole = run.observation
        whole.until = nil
        // Taken as a whole bucket, the last 0.15 s look like 2.4 Mbit/s: still above variant 2.
        #expect(run.figures(link: whole).utilisation == 1)
        #expect(CapacitySlot.slots(of: whole).last?.capacity == 2_400_000)
        #expect(CapacitySlot.slots(of: run.observation).last.map { abs($0.capacity - 4_000_000) < 1 } == true)
    }

    @Test func noVariantSegmentMeansNothingToJudge() {
        var run = LinkRun(steps: [(0, 4_000_000)], until: 30)
        run.traffic.start(variant: 2)
        let figures = run.figures()
        #expect(figures.variants.isEmpty && figures.falls.isEmpty && figures.utilisation == nil && figures.seconds == 0)
    }

    @Test func theFiguresTravelAsJSON() throws {
        let figures = Self.stepDownAndBack().figures(player: Self.stalls)
        let data = try JSONEncoder().encode(figures)
        #expect(try JSONDecoder().decode(AdaptationFigures.self, from: data) == figures)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""wentDownAfter":3.4"#) && text.contains(#""utilisation":0.8074"#))
    }
}
