import Chaos
import Foundation
import Records
import Testing
@testable import Verdicts

/// `movedPathway` and `steeringReloads` on hand-built content-steering sessions, and what the
/// reaction report says of them.
@Suite struct ContentSteeringCheckTests {
    /// hls.js-like: variants 0–2 on cdn-a, 3–5 on cdn-b. The manifest loads at 0.2 s and every 10 s;
    /// cdn-a's segment 5 answers 503 at 10 s and the player moves to variant 4 on cdn-b at 10.5 s.
    static func movedToCDNB(manifestStatus: Int = 200) -> Traffic {
        var t = Traffic()
        t.start(variant: 1)  // 1, 2
        t.steering(0.2)  // 3
        for msn in 0...4 { t.segment(0.5 + Double(msn) * 2, variant: 1, msn: msn, pathway: "cdn-a") }  // 4...8
        t.segment(10, variant: 1, msn: 5, status: 503, pathway: "cdn-a")  // 9
        t.steering(10.2, status: manifestStatus, actions: manifestStatus == 200 ? [] : nil)  // 10
        t.media(10.4, variant: 4)  // 11
        for msn in 5...9 { t.segment(10.5 + Double(msn - 5) * 2, variant: 4, msn: msn, pathway: "cdn-b") }  // 12...16
        t.steering(20.2, status: manifestStatus, actions: manifestStatus == 200 ? [] : nil)  // 17
        return t
    }

    func check(_ check: Expectation.Check, _ traffic: Traffic, now: Double = 22) -> ExpectationResult {
        let reaction = traffic.report(now: now, targetDuration: 2)
        return Evaluator.evaluate([Expectation(check)], records: traffic.records, reaction: reaction, player: nil,
                                  live: true, runEnded: traffic.at(now)).results[0]
    }

    @Test func theReportReadsPathwayMovesAndManifestReloads() throws {
        let report = Self.movedToCDNB().report(now: 22, targetDuration: 2)
        let steering = try #require(report.steering)
        #expect(steering.firstPathway == "cdn-a")
        #expect(steering.moves.map { "\($0.from)→\($0.to)" } == ["cdn-a→cdn-b"])
        #expect(steering.moves.first?.records == [9, 12])
        #expect(steering.reloads == [3, 10, 17] && steering.failedReloads == 0)
        #expect(abs((steering.medianInterval ?? 0) - 10) < 0.01)
        #expect(report.verdict.hasPrefix("Moved from pathway cdn-a to cdn-b after 0.5 s"), "\(report.verdict)")
        #expect(!report.verdict.contains("lateral"), "the move is told once, not also as a switch to variant 4: \(report.verdict)")
        #expect(report.verdict.contains("Reloaded the steering manifest three times (every 10.0 s)"), "\(report.verdict)")
    }

    /// ffmpeg opens every variant at start and reads the same two segments of each: that is no move.
    @Test func segmentsProbedOnEveryPathwayAtStartAreNoMove() throws {
        var t = Traffic()
        t.start(variant: 2)
        for variant in 0...5 {
            for msn in 19...20 { t.segment(0.5 + Double(variant) * 0.01, variant: variant, msn: msn, pathway: variant < 3 ? "cdn-a" : "cdn-b") }
        }
        for msn in 21...23 { t.segment(2 + Double(msn - 21) * 2, variant: 2, msn: msn, pathway: "cdn-a") }
        let steering = try #require(t.report(now: 10).steering)
        #expect(steering.firstPathway == "cdn-a" && steering.moves.isEmpty, "\(steering.moves)")
    }

    @Test func aSessionWithoutSteeringHasNoSteeringReport() {
        var t = Traffic()
        t.start(variant: 1)
        t.segments(0...3, variant: 1, from: 0.5)
        #expect(t.report(now: 10).steering == nil)
    }

    @Test func movedPathway() {
        let t = Self.movedToCDNB()
        let pass = check(.movedPathway(to: "cdn-b", within: .seconds(5)), t)
        #expect(pass.passed)
        #expect(pass.observed == "moved pathway: cdn-a → cdn-b after 0.5 s")
        #expect(pass.evidence == [9, 12])
        #expect(pass.expectation == "moved to content-steering pathway cdn-b within 5s of the first fault")
        #expect(check(.movedPathway(to: nil, within: nil), t).passed)
        #expect(!check(.movedPathway(to: "cdn-c", within: nil), t).passed)
        #expect(!check(.movedPathway(to: "cdn-b", within: .milliseconds(100)), t).passed)
        #expect(check(.not(.movedPathway(to: nil, within: nil)), t).passed == false)

        var stayed = Traffic()
        stayed.start(variant: 1)
        stayed.segment(0.5, variant: 1, msn: 0, pathway: "cdn-a")
        stayed.steering(1, status: 503)
        stayed.segment(2.5, variant: 1, msn: 1, pathway: "cdn-a")
        let none = check(.movedPathway(to: nil, within: nil), stayed, now: 4)
        #expect(!none.passed && none.observed == "stayed on pathway cdn-a after the first fault")
        #expect(check(.not(.movedPathway(to: nil, within: nil)), stayed, now: 4).passed)

        var plain = Traffic()
        plain.start(variant: 1)
        plain.segments(0...2, variant: 1, from: 0.5)
        let unjudged = check(.movedPathway(to: nil, within: nil), plain, now: 8)
        #expect(!unjudged.passed && unjudged.observed == "no variant segment of a content-steering pathway was requested")
    }

    @Test func steeringReloadsCountsManifestRequestsAfterTheFirstFault() {
        // The 503 on cdn-a's segment at 10 s is the first fault: the reloads at 10.2 s and 20.2 s follow it.
        let t = Self.movedToCDNB()
        let two = check(.steeringReloads(atLeast: 2, atMost: 2), t)
        #expect(two.passed, "\(two.observed)")
        #expect(two.observed == "2 steering manifest requests after the first fault (every 10.0 s over the run)")
        #expect(two.evidence == [10, 17])
        #expect(!check(.steeringReloads(atLeast: 3, atMost: nil), t).passed)
        #expect(check(.steeringReloads(atLeast: nil, atMost: 0), Traffic(), now: 1).passed, "no manifest, no reload")
    }
}
