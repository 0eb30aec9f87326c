import Foundation
import PlayerReports
import Records
import Testing
@testable import Verdicts

/// The few words of a matrix cell.
@Suite struct ReactionWordsTests {
    @Test func retriedThenSwitchedAndPlayed() {
        let t = EvaluatorTests.retriedThenSwitched()
        let reaction = t.report(now: 50, lastMSN: EvaluatorTests.lastMSN)
        #expect(ReactionWords.summary(reaction: reaction, player: PlayerReport(player: "hlsjs", outcome: .played))
            == "retried ×2 → down-switch 2→1 → fetched to the end; played")
        #expect(ReactionWords.summary(reaction: reaction, player: nil) == "retried ×2 → down-switch 2→1 → fetched to the end")
    }

    @Test func gaveUpAndFailed() {
        let t = EvaluatorTests.gaveUp()
        let player = PlayerReport(
            player: "hlsjs", outcome: .failed, reason: "fatal error",
            errors: [.init(kind: "fragLoadError", code: 404, fatal: false), .init(kind: "fragLoadError", code: 404, fatal: true),
                     .init(kind: "bufferStalledError")])
        #expect(ReactionWords.summary(reaction: t.report(now: 40), player: player)
            == "retried ×3 → gave up after 4 failures; failed: fragLoadError 404")
        var bare = player
        bare.errors = []
        #expect(ReactionWords.summary(reaction: t.report(now: 40), player: bare) == "retried ×3 → gave up after 4 failures; failed: fatal error")
    }

    @Test func quietSessions() {
        var clean = Traffic()
        clean.start(variant: 1)
        clean.segments(0...14, variant: 1, from: 0.5)
        #expect(ReactionWords.summary(reaction: clean.report(now: 50, lastMSN: EvaluatorTests.lastMSN),
                                      player: PlayerReport(player: "ffmpeg", outcome: .played))
            == "no fault injected, fetched to the end; played")

        var throttled = Traffic()
        throttled.start(variant: 1)
        for msn in 0...3 { throttled.segment(0.5 + Double(2 * msn), variant: 1, msn: msn, actions: [.init(.throttle(bytesPerSecond: 37500), rule: "test/rule")]) }
        #expect(ReactionWords.summary(reaction: throttled.report(now: 7), player: PlayerReport(player: "hlsjs", outcome: .stalled))
            == "no reaction needed; stalled")

        var once = Traffic()
        once.start(variant: 1)
        once.segment(0.5, variant: 1, msn: 0, status: 404)
        #expect(ReactionWords.summary(reaction: once.report(now: 30), player: PlayerReport(player: "ffmpeg", outcome: .timedOut))
            == "no retry, switch or failover, gave up after 1 failure; timed out")
        #expect(ReactionWords.summary(reaction: Traffic().report(now: 1), player: nil) == "no requests")
    }

    @Test func aPathwayMoveIsToldAsSuch() {
        let reaction = ContentSteeringCheckTests.movedToCDNB().report(now: 22, targetDuration: 2)
        #expect(ReactionWords.summary(reaction: reaction, player: PlayerReport(player: "hlsjs", outcome: .played))
            == "pathway cdn-a→cdn-b; played")
    }

    @Test func failoverAndSkips() {
        var t = Traffic()
        t.start(variant: 2)
        t.segments(0...3, variant: 2, from: 0.5)
        t.media(8, variant: 2, status: 404)
        t.media(8.5, variant: 2, copy: "backup")
        t.segment(8.7, variant: 2, msn: 4, copy: "backup")
        t.segment(9, variant: 2, msn: 6, copy: "backup")
        #expect(ReactionWords.summary(reaction: t.report(now: 10), player: nil)
            == "failover to the backup of variant 2 → skipped 1 segment")
    }
}
