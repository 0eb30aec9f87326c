import Chaos
import Foundation
import PlayerReports
import Records
import Testing
@testable import Verdicts

/// Every check passing and failing on hand-built sessions, with what it says it saw and the records
/// it names.
@Suite struct EvaluatorTests {
    // MARK: sessions

    /// hls.js-like on VOD: segment 8 of variant 2 answers 503 twice (16 s, 17 s), loads at 18 s; the
    /// player then moves to variant 1 (playlist at 20 s) and plays to its last segment (14).
    static func retriedThenSwitched() -> Traffic {
        var t = Traffic()
        t.start(variant: 2)  // ids 1, 2
        t.segments(0...7, variant: 2, from: 0.5)  // ids 3...10
        t.segment(16, variant: 2, msn: 8, status: 503)  // 11
        t.segment(17, variant: 2, msn: 8, status: 503)  // 12
        t.segment(18, variant: 2, msn: 8)  // 13
        t.media(20, variant: 1)  // 14
        t.segments(9...14, variant: 1, from: 20.2)  // 15...20
        return t
    }

    static let lastMSN = [0: 14, 1: 14, 2: 14]

    /// GStreamer-like: segment 8 answers 404 four times, then nothing more is requested.
    static func gaveUp() -> Traffic {
        var t = Traffic()
        t.start(variant: 2)
        t.segments(0...7, variant: 2, from: 0.5)  // ids 3...10
        for time in [16, 16.45, 16.9, 17.35] { t.segment(time, variant: 2, msn: 8, status: 404) }  // 11...14
        return t
    }

    func check(_ check: Expectation.Check, _ traffic: Traffic, now: Double, player: PlayerReport? = nil, live: Bool = false,
               runEnded: Double? = nil, targetDuration: Double? = nil) -> ExpectationResult {
        let reaction = traffic.report(now: now, targetDuration: targetDuration, lastMSN: live ? [:] : Self.lastMSN)
        let verdict = Evaluator.evaluate([Expectation(check)], records: traffic.records, reaction: reaction, player: player,
                                         live: live, runEnded: traffic.at(runEnded ?? now))
        return verdict.results[0]
    }

    // MARK: switches

    @Test func switchedDown() {
        let t = Self.retriedThenSwitched()
        let pass = check(.switchedDown(within: .seconds(20)), t, now: 50)
        #expect(pass.passed)
        #expect(pass.observed == "down-switch 2→1 4.0 s after the first fault")
        #expect(pass.evidence == [11, 13, 14, 15])
        #expect(pass.expectation == "switched down within 20s of the first fault")
        #expect(pass.documented && pass.players.isEmpty)

        let late = check(.switchedDown(within: .seconds(2)), t, now: 50)
        #expect(!late.passed)
        #expect(late.observed == "the first down-switch (2→1) came 4.0 s after the first fault")

        #expect(check(.switchedDown(within: nil), t, now: 50).passed)
        let none = check(.switchedDown(within: nil), Self.gaveUp(), now: 40)
        #expect(!none.passed)
        #expect(none.observed == "no down-switch after the first fault")
    }

    /// hls.js on a live stream, still on variant 1 when variant 2 goes (410 on the playlist it
    /// loaded to switch up): it never moves onto 2 and keeps playing 1. No down-switch was needed.
    @Test func aFaultOnAVariantThePlayerWasNotPlayingNeedsNoDownSwitch() {
        var t = Traffic()
        t.start(variant: 1)  // ids 1, 2
        t.segments(0...4, variant: 1, from: 0.5)  // ids 3...7
        t.media(10, variant: 2, status: 410)  // 8
        t.segments(5...9, variant: 1, from: 10.5)  // 9...13
        let stayed = check(.switchedDown(within: .seconds(5)), t, now: 40)
        #expect(stayed.passed)
        #expect(stayed.observed == "no down-switch needed: variant 2 failed while the player was on variant 1 (it had not switched to 2), and it stayed there")
        #expect(stayed.evidence == [7, 8, 9])
        // Its next segment must come in time, and from the variant it was on.
        #expect(!check(.switchedDown(within: .milliseconds(200)), t, now: 40).passed)
        var moved = Traffic()
        moved.start(variant: 1)
        moved.segments(0...4, variant: 1, from: 0.5)
        moved.media(10, variant: 2, status: 410)
        moved.segments(5...9, variant: 0, from: 10.5)
        #expect(check(.switchedDown(within: nil), moved, now: 40).observed.hasPrefix("down-switch 1→0"))
        // A player on the faulted variant itself must really switch down (gaveUp() stays on 2).
        #expect(!check(.switchedDown(within: nil), Self.gaveUp(), now: 40).passed)
    }

    @Test func switchedUp() {
        let t = Self.retriedThenSwitched()
        let result = check(.switchedUp(within: nil), t, now: 50)
        #expect(!result.passed)
        #expect(result.observed == "no up-switch after the first fault (switches seen: down 2→1)")

        var up = Traffic()
        up.start(variant: 0)
        up.segment(0.5, variant: 0, msn: 0, actions: [.init(.throttle(bytesPerSecond: 37500), rule: "test/rule")])
        up.media(2, variant: 2)
        up.segment(2.2, variant: 2, msn: 1)
        let passed = check(.switchedUp(within: .seconds(5)), up, now: 3)
        #expect(passed.passed)
        #expect(passed.observed == "up-switch 0→2 1.5 s after the first fault")
    }

    // MARK: retries, failover, skips

    @Test func retried() {
        let t = Self.retriedThenSwitched()
        let result = check(.retried(atLeast: 1, atMost: 10), t, now: 50)
        #expect(result.passed)
        #expect(result.observed == "2 retries of segment 8 of variant 2 (503, 503, 200)")
        #expect(result.evidence == [11, 12, 13])
        #expect(!check(.retried(atLeast: nil, atMost: 1), t, now: 50).passed)
        #expect(!check(.retried(atLeast: 3, atMost: nil), t, now: 50).passed)

        let many = check(.retried(atLeast: nil, atMost: 2), Self.gaveUp(), now: 40)
        #expect(!many.passed)
        #expect(many.observed == "3 retries of segment 8 of variant 2 (404 ×4)")
        #expect(many.evidence == [11, 12, 13, 14])
    }

    @Test func retriesOfResourcesNobodyFaultedDoNotCount() {
        var t = Traffic()
        t.start(variant: 1)
        // The origin's own 404s (no rule matched: no actions), retried.
        t.segment(0.5, variant: 1, msn: 0, status: 404, actions: [])
        t.segment(1.5, variant: 1, msn: 0, status: 404, actions: [])
        t.segment(2.5, variant: 1, msn: 0)
        let result = check(.retried(atLeast: nil, atMost: 0), t, now: 3)
        #expect(result.passed)
        #expect(result.observed == "0 retries (no faulted request failed)")
    }

    @Test func failedOver() {
        var t = Traffic()
        t.start(variant: 2)
        for n in 1...4 {
            t.media(Double(2 * n), variant: 2)
            t.segment(Double(2 * n) + 0.2, variant: 2, msn: n)
        }
        let failure = t.media(10, variant: 2, status: 404)
        let backup = t.media(10.5, variant: 2, copy: "backup")
        t.segment(10.7, variant: 2, msn: 5, copy: "backup")
        let result = check(.failedOver(within: .seconds(2)), t, now: 11, live: true)
        #expect(result.passed)
        #expect(result.observed == "requested the backup copy of variant 2 0.5 s after the primary failed (it loaded)")
        #expect(result.evidence == [failure, backup])
        let late = check(.failedOver(within: .milliseconds(100)), t, now: 11, live: true)
        #expect(!late.passed)
        #expect(late.observed == "too late: requested the backup copy of variant 2 0.5 s after the primary failed (it loaded)")

        let none = check(.failedOver(within: nil), Self.gaveUp(), now: 40)
        #expect(!none.passed)
        #expect(none.observed == "no request for a backup copy")
    }

    @Test func skipped() {
        var t = Traffic()
        t.start(variant: 2)
        t.segments(0...7, variant: 2, from: 0.5)
        for msn in 8...10 { t.segment(Double(16 + 2 * (msn - 8)), variant: 2, msn: msn, status: 503) }
        t.segments(11...14, variant: 2, from: 22)
        let result = check(.skipped(atLeast: 3, atMost: nil), t, now: 50)
        #expect(result.passed)
        #expect(result.observed == "3 segments skipped (8–10)")
        #expect(result.evidence == [10, 11, 12, 13, 14])
        #expect(!check(.skipped(atLeast: nil, atMost: 0), t, now: 50).passed)
        // Each 503 was asked once and never again: no retry.
        let retries = check(.retried(atLeast: nil, atMost: 0), t, now: 50)
        #expect(retries.passed)
        #expect(retries.observed == "0 retries (no faulted resource was requested again after it failed)")

        let clean = check(.skipped(atLeast: nil, atMost: 0), Self.retriedThenSwitched(), now: 50)
        #expect(clean.passed)
        #expect(clean.observed == "no segment skipped")
    }

    // MARK: the end of the run

    @Test func fetchedToTheEndOfAVOD() {
        let finished = check(.fetchedToTheEnd, Self.retriedThenSwitched(), now: 50)
        #expect(finished.passed)
        #expect(finished.observed == "finished at the last segment (last segment: segment 14 of variant 1)")
        #expect(finished.evidence == [20])

        let gaveUp = check(.fetchedToTheEnd, Self.gaveUp(), now: 40)
        #expect(!gaveUp.passed)
        #expect(gaveUp.observed == "gave up after failures (last segment: segment 8 of variant 2)")

        var short = Traffic()
        short.start(variant: 1)
        short.segments(0...5, variant: 1, from: 0.5)
        let stopped = check(.fetchedToTheEnd, short, now: 40)
        #expect(!stopped.passed)
        #expect(stopped.observed == "stopped before the last segment, or the last segment is not known (last segment: segment 5 of variant 1)")

        // Made while the player was still requesting: no stop to read.
        let running = check(.fetchedToTheEnd, Self.retriedThenSwitched(), now: 31)
        #expect(!running.passed)
        #expect(running.observed == "the reaction report has no stop: the player was still requesting when it was made")
    }

    static func live(reloadEvery interval: Double = 2, until end: Double = 40) -> Traffic {
        var t = Traffic()
        t.start(variant: 2)
        var time = interval
        while time <= end {
            t.media(time, variant: 2)
            time += interval
        }
        for n in 1...Int(end / 2) { t.segment(Double(2 * n) + 0.2, variant: 2, msn: n) }
        return t
    }

    @Test func fetchedToTheEndOfALiveRun() {
        let t = Self.live()
        let result = check(.fetchedToTheEnd, t, now: 41, live: true, targetDuration: 2)
        #expect(result.passed)
        #expect(result.observed == "last segment loaded 0.8 s before the end of the run (segment 20 of variant 2)")
        #expect(result.evidence == [t.records.last!.id])

        let stale = check(.fetchedToTheEnd, t, now: 60, live: true, targetDuration: 2)
        #expect(!stale.passed)
        #expect(stale.observed == "last segment loaded 19.8 s before the end of the run (segment 20 of variant 2); expected within 8.0 s")
    }

    /// ffmpeg went on with the audio rendition after its video variant's playlist was gone: that
    /// is not playing to the end.
    @Test func audioAloneDoesNotKeepALiveRunGoing() {
        var t = Traffic()
        t.start(variant: 2)
        for n in 1...8 { t.segment(Double(2 * n), variant: 2, msn: n) }
        for n in 1...20 {
            t.add(Double(2 * n) + 0.1, kind: .segment, rendition: 0, msn: n, tag: "~seg.r0.n\(n)", file: "audio/\(n).aac", status: 200)
        }
        let result = check(.fetchedToTheEnd, t, now: 41, live: true, targetDuration: 2)
        #expect(!result.passed)
        #expect(result.observed == "last segment loaded 25.0 s before the end of the run (segment 8 of variant 2); expected within 10.0 s")
    }

    @Test func stopped() {
        let t = Self.gaveUp()
        let result = check(.stopped(within: .seconds(5)), t, now: 40)
        #expect(result.passed)
        #expect(result.observed == "gave up 1.5 s after the first fault (4 failed requests since the last segment that loaded)")
        #expect(result.evidence == [11, 12, 13, 14])
        let late = check(.stopped(within: .seconds(1)), t, now: 40)
        #expect(!late.passed)

        let still = check(.stopped(within: nil), t, now: 20)
        #expect(!still.passed)
        #expect(still.observed == "still requesting when the run ended")
        let finished = check(.stopped(within: nil), Self.retriedThenSwitched(), now: 50)
        #expect(!finished.passed)
        #expect(finished.observed == "did not give up: finished at the last segment")
    }

    // MARK: reloads and gaps

    @Test func reloadCadence() {
        let steady = check(.reloadCadence(.withinBounds), Self.live(), now: 41, live: true, targetDuration: 2)
        #expect(steady.passed)
        #expect(steady.observed == "all 1 judged playlists within bounds: variant 2 every 2.0 s (1.00× the target duration, withinBounds)")
        #expect(steady.evidence.count == 21)

        let fast = Self.live(reloadEvery: 0.5)
        let bounded = check(.reloadCadence(.withinBounds), fast, now: 41, live: true, targetDuration: 2)
        #expect(!bounded.passed)
        #expect(bounded.observed == "variant 2 every 0.5 s (0.25× the target duration, tooFast)")
        #expect(check(.reloadCadence(.tooFast), fast, now: 41, live: true, targetDuration: 2).passed)
        #expect(!check(.reloadCadence(.tooSlow), fast, now: 41, live: true, targetDuration: 2).passed)

        let unjudged = check(.reloadCadence(.withinBounds), Self.live(), now: 41, live: true)
        #expect(!unjudged.passed)
        #expect(unjudged.observed == "no reload cadence could be judged (1 media playlist reloaded; judging needs a target duration, 3 or more requests and no blocking reloads)")
    }

    /// The gap preset: variant 2's playlist is served with the gap rule; segments 8-10 are marked.
    static func gapSession(honoured: Bool) -> Traffic {
        var t = Traffic()
        let rule = "gap/top-gap-8-10"
        t.add(0, kind: .master, tag: "~master", file: "master.m3u8", status: 200)
        t.media(0.1, variant: 2, actions: [.init(.content("gap"), rule: rule)], content: [rule], rules: [rule])  // 2
        t.segments(0...7, variant: 2, from: 0.5)  // 3...10
        if honoured {
            t.media(16, variant: 1)
            t.segments(8...10, variant: 1, from: 16.2)
        } else {
            for msn in 8...10 { t.segment(Double(16 + 2 * (msn - 8)), variant: 2, msn: msn, status: 404, rules: [rule]) }  // 11...13
        }
        t.segments(11...14, variant: 2, from: 22)
        return t
    }

    /// A gap rule is the rule its action names, not the one at its position: here two content
    /// rules decided the playlist and only the second, the gap rule, left an action.
    @Test func gapRulesAreReadFromTheirActions() {
        var t = Traffic()
        let gap = "gap/top-gap-8", remove = "edit/remove-none"
        t.add(0, kind: .master, tag: "~master", file: "master.m3u8", status: 200)
        t.media(0.1, variant: 2, actions: [.init(.content("gap"), rule: gap)], content: [remove, gap], rules: [remove, gap])  // 2
        t.segments(0...7, variant: 2, from: 1.5)  // 3...10
        t.segment(17.5, variant: 2, msn: 8, status: 404, rules: [gap])  // 11
        let result = check(.neverRequested(.gapSegments), t, now: 40)
        #expect(!result.passed)
        #expect(result.observed == "1 request for segments marked EXT-X-GAP: segment 8 of variant 2 (404)")
        #expect(result.evidence == [11])
    }

    @Test func neverRequestedGapSegments() {
        let honoured = check(.neverRequested(.gapSegments), Self.gapSession(honoured: true), now: 40)
        #expect(honoured.passed)
        #expect(honoured.observed == "no request for a segment marked by gap/top-gap-8-10 (1 playlist response with the gap rule)")
        #expect(honoured.evidence == [2])

        let ignored = check(.neverRequested(.gapSegments), Self.gapSession(honoured: false), now: 40)
        #expect(!ignored.passed)
        #expect(ignored.observed == "3 requests for segments marked EXT-X-GAP: segment 8 of variant 2 (404), segment 9 of variant 2 (404), segment 10 of variant 2 (404)")
        #expect(ignored.evidence == [11, 12, 13])

        // 404s from a status rule are no gap.
        let noGap = check(.neverRequested(.gapSegments), Self.gaveUp(), now: 40)
        #expect(noGap.passed)
        #expect(noGap.observed == "no media playlist was served with a gap rule (nothing to avoid)")
    }

    // MARK: the player's report

    static let player = PlayerReport(
        player: "hlsjs", outcome: .played,
        errors: [
            .init(time: 16.2, kind: "fragLoadError", code: 503, fatal: false, message: "sn 8"),
            .init(time: 17.3, kind: "fragLoadError", code: 503, fatal: false, message: "sn 8"),
            .init(time: 17.9, kind: "bufferStalledError", fatal: false),
        ],
        log: "[hls] loading level 2\n[hls @ 0x1] HTTP error 503 Service Unavailable\nFailed to open segment 8 of playlist 4\n")

    @Test func outcome() {
        let t = Self.retriedThenSwitched()
        let played = check(.outcome(["played"]), t, now: 50, player: Self.player)
        #expect(played.passed)
        #expect(played.observed == "outcome: played")
        #expect(played.evidence == [])
        var failed = Self.player
        failed.outcome = .failed
        failed.reason = "fatal fragLoadError"
        let result = check(.outcome(["played", "stalled"]), t, now: 50, player: failed)
        #expect(!result.passed)
        #expect(result.observed == "outcome: failed: fatal fragLoadError")

        let missing = check(.outcome(["played"]), t, now: 50)
        #expect(!missing.passed)
        #expect(missing.observed == "no player report")
    }

    @Test func playerError() {
        let t = Self.retriedThenSwitched()
        func run(_ kind: String?, _ code: Int? = nil, _ fatal: Bool? = nil, _ player: PlayerReport = Self.player) -> ExpectationResult {
            check(.playerError(kind: kind, code: code, fatal: fatal), t, now: 50, player: player)
        }
        let byKind = run("fragloaderror")
        #expect(byKind.passed)
        #expect(byKind.observed == "reported fragLoadError 503 (non-fatal) at 16.2 s (and 1 more)")
        #expect(run("LoadError", 503, false).passed)
        #expect(run(nil).passed)
        #expect(run("Stalled").observed == "reported bufferStalledError (non-fatal) at 17.9 s")

        let wrongCode = run("fragLoadError", 404)
        #expect(!wrongCode.passed)
        #expect(wrongCode.observed == "no matching error; reported: fragLoadError 503 (non-fatal), bufferStalledError (non-fatal)")
        #expect(!run(nil, nil, true).passed)

        var quiet = Self.player
        quiet.errors = []
        let none = run(nil, nil, nil, quiet)
        #expect(!none.passed)
        #expect(none.observed == "no error reported")
    }

    @Test func log() {
        let t = Self.retriedThenSwitched()
        let matched = check(.log("HTTP error 50[0-9]"), t, now: 50, player: Self.player)
        #expect(matched.passed)
        #expect(matched.observed == #"matched: "[hls @ 0x1] HTTP error 503 Service Unavailable""#)
        // ^ and $ are line anchors.
        #expect(check(.log("^Failed to open segment [0-9]+ of playlist"), t, now: 50, player: Self.player).passed)
        let missing = check(.log("Connection timed out"), t, now: 50, player: Self.player)
        #expect(!missing.passed)
        #expect(missing.observed == "no line of the log matches (3 lines)")

        let forbidden = check(.logNot("HTTP error 503"), t, now: 50, player: Self.player)
        #expect(!forbidden.passed)
        #expect(forbidden.observed == #"matched: "[hls @ 0x1] HTTP error 503 Service Unavailable""#)
        #expect(check(.logNot("Connection timed out"), t, now: 50, player: Self.player).passed)
        #expect(!check(.logNot("x"), t, now: 50).passed)
    }

    // MARK: combinations, selection, verdicts

    @Test func anyOf() {
        let either = Expectation.Check.anyOf([.retried(atLeast: 1, atMost: nil), .switchedDown(within: nil)])
        let result = check(either, Self.gaveUp(), now: 40)
        #expect(result.passed)
        #expect(result.observed == "retried: 3 retries of segment 8 of variant 2 (404 ×4); switchedDown: no down-switch after the first fault")
        #expect(result.evidence == [11, 12, 13, 14])
        #expect(result.expectation == "retried the faulted resource at least once, or switched down")

        let neither = check(.anyOf([.switchedUp(within: nil), .failedOver(within: nil)]), Self.gaveUp(), now: 40)
        #expect(!neither.passed)
    }

    @Test func not() {
        let gaveUp = Self.gaveUp()
        let departed = check(.not(.fetchedToTheEnd), gaveUp, now: 40)
        #expect(departed.passed)
        #expect(departed.observed == "gave up after failures (last segment: segment 8 of variant 2)")
        #expect(departed.expectation == "not: kept fetching segments to the end")
        #expect(!check(.not(.fetchedToTheEnd), Self.retriedThenSwitched(), now: 50).passed)
        // What cannot be judged fails, negated or not.
        let running = check(.not(.fetchedToTheEnd), Self.retriedThenSwitched(), now: 31)
        #expect(!running.passed)
        #expect(running.observed == "the reaction report has no stop: the player was still requesting when it was made")
        #expect(!check(.not(.outcome(["played"])), gaveUp, now: 40).passed)
        #expect(!check(.not(.logNot("x")), gaveUp, now: 40).passed)
        #expect(!check(.not(.reloadCadence(.withinBounds)), Self.live(), now: 41, live: true).passed)
        #expect(check(.not(.outcome(["played"])), gaveUp, now: 40, player: PlayerReport(player: "gstreamer", outcome: .failed)).passed)
    }

    @Test func perPlayerExpectationsReplaceDocumentedOnesWithTheSameCheck() {
        let retried = Expectation(.retried(atLeast: 1, atMost: nil), note: "session 514")
        let played = Expectation(.outcome(["played"]))
        let ffmpegSkips = Expectation(.outcome(["played", "failed"]), players: ["ffmpeg", "gstreamer"])
        let hlsjsLog = Expectation(.log("fragLoadError"), players: ["hlsjs"])
        let all = [retried, played, ffmpegSkips, hlsjsLog]
        #expect(Evaluator.expectations(for: "ffmpeg", in: all, documentedOnly: false) == [retried, ffmpegSkips])
        #expect(Evaluator.expectations(for: "gstreamer", in: all, documentedOnly: false) == [retried, ffmpegSkips])
        #expect(Evaluator.expectations(for: "hlsjs", in: all, documentedOnly: false) == [retried, played, hlsjsLog])
        #expect(Evaluator.expectations(for: "vlc", in: all, documentedOnly: false) == [retried, played])
        #expect(Evaluator.expectations(for: "ffmpeg", in: all, documentedOnly: true) == [retried, played])

        // A known departure replaces the documented check it negates.
        let toTheEnd = Expectation(.fetchedToTheEnd, note: "session 514")
        let stops = Expectation(.not(.fetchedToTheEnd), players: ["gstreamer"], note: "observed")
        let gaveUp = Expectation(.stopped(within: nil), players: ["gstreamer"])
        #expect(Evaluator.expectations(for: "gstreamer", in: [toTheEnd, played, stops, gaveUp], documentedOnly: false)
            == [played, stops, gaveUp])
        #expect(Evaluator.expectations(for: "hlsjs", in: [toTheEnd, played, stops, gaveUp], documentedOnly: false)
            == [toTheEnd, played])
    }

    @Test func verdict() {
        let t = Self.retriedThenSwitched()
        let reaction = t.report(now: 50, lastMSN: Self.lastMSN)
        let expectations = [
            Expectation(.anyOf([.retried(atLeast: 1, atMost: nil), .switchedDown(within: nil)]), note: "session 514: temporary"),
            Expectation(.switchedUp(within: nil), players: ["hlsjs"], note: "observed"),
            Expectation(.outcome(["played"])),
        ]
        let verdict = Evaluator.evaluate(expectations, records: t.records.reversed(), reaction: reaction, player: Self.player,
                                         live: false, runEnded: t.at(50))
        #expect(!verdict.passed)
        #expect(verdict.results.map(\.passed) == [true, false, true])
        #expect(verdict.summary == "1 of 3 expectations failed: switched up")
        #expect(verdict.results[1].documented == false)
        #expect(verdict.results[1].players == ["hlsjs"])
        #expect(verdict.results[1].note == "observed")
        #expect(verdict.results[1].check == "switchedUp")
        #expect(verdict.results[0].note == "session 514: temporary")

        let held = Evaluator.evaluate([expectations[0], expectations[2]], records: t.records, reaction: reaction,
                                      player: Self.player, live: false, runEnded: t.at(50))
        #expect(held.passed)
        #expect(held.summary == "all 2 expectations held")

        let empty = Evaluator.evaluate([], records: t.records, reaction: reaction, player: nil, live: false, runEnded: t.at(50))
        #expect(empty.passed)
        #expect(empty.summary == "no expectations to check (passed)")

        var clean = Traffic()
        clean.start(variant: 1)
        clean.segments(0...14, variant: 1, from: 0.5)
        let quiet = Evaluator.evaluate([Expectation(.fetchedToTheEnd)], records: clean.records,
                                       reaction: clean.report(now: 50, lastMSN: Self.lastMSN), player: nil, live: false,
                                       runEnded: clean.at(50))
        #expect(quiet.passed)
        #expect(quiet.summary == "the expectation held (no fault was injected)")
    }

    @Test func verdictsRoundTripThroughJSON() throws {
        let t = Self.gaveUp()
        let verdict = Evaluator.evaluate([Expectation(.stopped(within: .seconds(5)), note: "n")], records: t.records,
                                         reaction: t.report(now: 40), player: nil, live: false, runEnded: t.at(40))
        let data = try JSONEncoder().encode(verdict)
        #expect(try JSONDecoder().decode(Verdict.self, from: data) == verdict)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""evidence":[11,12,13,14]"#))
    }
}
