import CMCD
import Foundation
import Records
import Testing

/// The report's player section beyond CMCD alone: the stalls the records show (a segment held
/// longer than the buffer claimed) and whether the CMCD said them, the claimed buffer beside the
/// page's own, and a replayed HAR's field player.
@Suite struct PlayerAccountTests {
    static let start = PlayerTimelineTests.start

    static func segment(_ id: UInt64, at seconds: Double, _ cmcd: String?, ending: RequestRecord.Ending = .complete,
                        duration: Double = 0.1, actions: [RequestRecord.Action] = [], link: RequestRecord.LinkTimes? = nil) -> RequestRecord {
        RequestRecord(
            id: id, time: start.addingTimeInterval(seconds), session: "tv1", client: "", method: "GET", path: "/v1/s\(id).ts",
            kind: .segment, variant: 1, msn: Int(id), actions: actions, status: ending == .hang ? nil : 200, ending: ending,
            duration: duration, link: link, cmcd: cmcd.map { .init(text: $0, carriages: ["query"]) })
    }

    static let media = "br=800,d=2000,ot=v,sid=\"a\""

    /// A hang of 8 s on segment 3 with 1.2 s of buffer claimed: the buffer ran dry at 5.2 s.
    static let hungSession = [
        segment(1, at: 0, "bl=0,su," + media),
        segment(2, at: 2, "bl=4000," + media),
        segment(3, at: 4, "bl=1200," + media, ending: .hang, duration: 8),
        segment(4, at: 12.1, "bl=0," + media),
        segment(5, at: 14, "bl=2000," + media),
    ]

    static func words(_ stall: CMCDKnownStall) -> String { "\(stall.time)–\(stall.end): \(stall.cause)" }

    @Test func segmentsHeldLongerThanTheClaimedBufferAreStalls() {
        let records = [
            Self.segment(1, at: 0, "bl=0,su," + Self.media, ending: .hang, duration: 3),
            Self.segment(2, at: 3, "bl=2000," + Self.media, actions: [.init(.delay(seconds: 2.3), rule: "t/slow")]),
            Self.segment(3, at: 6, "bl=2000," + Self.media, actions: [.init(.delay(seconds: 2.6), rule: "t/slow")]),
            Self.segment(4, at: 9, nil, link: .init(latency: 0.5, waited: 4, stalled: 1.5)),
            Self.segment(5, at: 12, "bl=3000," + Self.media, ending: .hang, duration: 3.4),
        ]
        // 1: startup; 2: 2.3 s held against 2.0 s claimed is within the margin; 4: no CMCD of its own,
        // the latest claim (2.0 s) against 0.5 + 1.5 s of the link's; 5: 3.4 s against 3.0 s.
        #expect(CMCDKnownStall.held(in: records).map(Self.words) == ["8.0–8.6: segment 3 of variant 1 held 2.6 s with 2.0 s of buffer claimed"])
        #expect(CMCDKnownStall.held(in: Self.hungSession).map(Self.words) == ["5.2–12.0: segment 3 of variant 1 held 8.0 s with 1.2 s of buffer claimed"])
        #expect(CMCDKnownStall.reported([(at: 3, duration: 1.5)]).map(Self.words) == ["3.0–4.5: the player reported it, 1.5 s long"])
    }

    @Test func theReportAndTheConformanceSayAStallTheCMCDNeverSaid() {
        let expected = "no request said the stall at 5.2 s (segment 3 of variant 1 held 8.0 s with 1.2 s of buffer claimed) with bs (once, first at request 4, 12.1 s)"
        let conformance = CMCDSessionConformance(Self.hungSession)
        #expect(conformance.unsaidStallIssue?.description == expected)
        #expect(!conformance.isValid)
        let report = ReactionReport.analyze(Self.hungSession, now: Self.start.addingTimeInterval(20))
        #expect(report.player?.stallsNotSaid == expected)
        #expect(report.verdict.hasSuffix("CMCD conformance: " + expected + "."), "\(report.verdict)")
        // The player said it: nothing to report.
        var said = Self.hungSession
        said[3] = Self.segment(4, at: 12.1, "bl=0,bs," + Self.media)
        #expect(ReactionReport.analyze(said, now: Self.start.addingTimeInterval(20)).player?.stallsNotSaid == nil)
        #expect(CMCDSessionConformance(said).unsaidStallIssue == nil)
    }

    static let claims = [
        segment(1, at: 0, "bl=0,su," + media),
        segment(2, at: 1, "bl=2000," + media),
        segment(3, at: 3, "bl=3000," + media),
        segment(4, at: 5, "bl=4000," + media),
        segment(5, at: 7, "bl=4100," + media),
        segment(6, at: 30, "bl=9000," + media),
    ]

    @Test func theClaimedBufferBesideThePagesOwn() throws {
        let page: [(at: Double, ahead: Double)] = [(0.1, 0), (0.9, 1.8), (1.05, 2.2), (3.1, 2.4), (5.0, 4.2), (7.2, 1.1), (29.5, 9)]
        let timeline = PlayerTimeline.build(Self.claims)
        let check = try #require(ReactionReport.comparePageBuffer(timeline.points, page: page))
        // 0 vs 0; 2.0 vs 2.2 (1.05 is nearer than 0.9); 3.0 vs 2.4; 4.0 vs 4.2; 4.1 vs 1.1; 30 s has no sample within 0.3 s.
        #expect(check.compared == 5)
        #expect(check.medianDifference == 0 && check.medianAbsoluteDifference == 0.2)
        #expect(check.largest.record == 5 && check.largest.time == 7 && check.largest.claimed == 4.1 && check.largest.page == 1.1 && check.largest.difference == 3)
        #expect(!check.persistentlyOff && check.tolerance == 1)
        #expect(check.words
            == "Its CMCD buffer (bl) was 0.2 s off the page's own in the median of 5 requests, at most 3.0 s (request 5 at 7.0 s: 4.1 s claimed, 1.1 s on the page)")

        let behind = page.map { (at: $0.at, ahead: max(0, $0.ahead - 1.5)) }
        let off = try #require(ReactionReport.comparePageBuffer(timeline.points, page: behind))
        #expect(off.persistentlyOff && off.medianAbsoluteDifference == 1.3 && off.medianDifference == 1.3)
        #expect(off.words.hasPrefix(
            "Its CMCD buffer (bl) was persistently off the page's own: by 1.3 s in the median of 5 requests, more than the 1.0 s tolerance (claiming more than there was)"))
        #expect(ReactionReport.comparePageBuffer(timeline.points, page: []) == nil)
        #expect(ReactionReport.comparePageBuffer(timeline.points, page: [(at: 50, ahead: 1)]) == nil)
    }

    @Test func aRunAddsThePageAndTheDriversStallsToThePlayerSection() {
        var report = ReactionReport.analyze(Self.claims, now: Self.start.addingTimeInterval(40))
        let before = report.verdict
        report.addPlayerAccount(records: Self.claims, pageBuffer: [(at: 1, ahead: 2), (at: 3, ahead: 3)], stalls: [(at: 10, duration: 2)])
        #expect(report.player?.pageBuffer?.compared == 2)
        // The driver's stall at 10 s: the request at 30 s said no bs.
        #expect(report.player?.stallsNotSaid == "no request said the stall at 10.0 s (the player reported it, 2.0 s long) with bs (once, first at request 6, 30.0 s)")
        #expect(report.verdict.hasPrefix(before), "\(report.verdict)")
        #expect(report.verdict.hasSuffix("Its CMCD buffer (bl) was 0.0 s off the page's own in the median of 2 requests, at most 0.0 s (request 2 at 1.0 s: 2.0 s claimed, 2.0 s on the page). "
            + "CMCD conformance: no request said the stall at 10.0 s (the player reported it, 2.0 s long) with bs (once, first at request 6, 30.0 s)."), "\(report.verdict)")
        // Added twice, the sentences are replaced, not repeated.
        report.addPlayerAccount(records: Self.claims, pageBuffer: [(at: 1, ahead: 2), (at: 3, ahead: 3)], stalls: [(at: 10, duration: 2)])
        #expect(report.verdict.components(separatedBy: "Its CMCD buffer").count == 2, "\(report.verdict)")
        #expect(report.verdict.components(separatedBy: "at its lowest").count == 2, "\(report.verdict)")
    }

    @Test func aReplayedImportShowsTheFieldPlayerBesideTheSessionsOwn() {
        var report = ReactionReport.analyze(Self.claims, now: Self.start.addingTimeInterval(40))
        report.addFieldPlayer(PlayerTimeline.build(PlayerTimelineTests.session))
        #expect(report.fieldPlayer?.requestsWithCMCD == 7 && report.fieldPlayer?.stalls.count == 1 && report.fieldPlayer?.faults == [])
        #expect(report.fieldPlayer?.lowestBuffer?.bufferLength == 0 && report.fieldPlayer?.startup?.seconds == 13)
        #expect(report.verdict.hasSuffix(" The field player (the HAR's CMCD, 7 requests) reported 0.0 s of buffer at its lowest; 1 stall; it started in 13.0 s."),
                "\(report.verdict)")
    }
}
