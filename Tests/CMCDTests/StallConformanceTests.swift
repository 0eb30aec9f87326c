import CMCD
import Testing

/// "bs never sent after a stall": a stall known from outside the CMCD (the driver's report, a
/// segment held longer than the buffer claimed) that no later request said.
@Suite struct StallConformanceTests {
    static func request(_ time: Double, _ cmcd: String?) -> CMCDObservation {
        ConformanceTests.request(time, .video, cmcd)
    }

    static let media = "br=800,d=2000,ot=v,sid=\"a\""
    static let hung = CMCDKnownStall(time: 5.2, end: 12, cause: "segment 3 held 8.0 s with 1.2 s of buffer claimed")

    static func unsaid(_ observations: [CMCDObservation], _ stalls: [CMCDKnownStall]) -> [String] {
        CMCDConformance.unsaidStalls(observations, stalls: stalls).map { "\($0.stall.time) → request \($0.firstRequestAfter) v\($0.version)" }
    }

    @Test func aStallNoLaterRequestSaidIsAnIssue() {
        let session = [
            Self.request(0, "bl=0,su," + Self.media),
            Self.request(4, "bl=1200," + Self.media),
            Self.request(12.1, "bl=0," + Self.media),
            Self.request(14, "bl=2000," + Self.media),
        ]
        #expect(Self.unsaid(session, [Self.hung]) == ["5.2 → request 2 v1"])
        let report = CMCDConformance.check(session, stalls: [Self.hung])
        let issue = report.issues.first { $0.key == "bs" }
        #expect(issue?.kind == .starvationNotSent(cause: Self.hung.cause, at: 5.2) && issue?.count == 1 && issue?.firstRequest == 2)
        #expect(issue?.description == "no request said the stall at 5.2 s (segment 3 held 8.0 s with 1.2 s of buffer claimed) with bs (once, first at request 3, 12.1 s)")
        #expect(!report.isClean)
    }

    @Test func bsOnALaterRequestSaysIt() {
        let session = [
            Self.request(0, "bl=0,su," + Self.media),
            Self.request(4, "bl=1200," + Self.media),
            Self.request(12.1, "bl=0," + Self.media),
            Self.request(13, "bl=900,bs," + Self.media),
        ]
        #expect(Self.unsaid(session, [Self.hung]) == [])
        #expect(CMCDConformance.check(session, stalls: [Self.hung]).isClean)
    }

    @Test func version2SaysItWithStaBsdOrAGrownBsa() {
        let v2 = ",v=2,sid=\"a\""
        let before = Self.request(4, "bl=(1200),bsa=(1),ot=v,sta=p" + v2)
        let after: [(String, Bool)] = [
            ("bl=(0),ot=v,sta=r", true), ("bl=(0),bsd=(3000),ot=v,sta=p", true), ("bl=(0),bsa=(2),ot=v,sta=p", true),
            ("bl=(0),bsa=(1),ot=v,sta=p", false), ("bl=(0),ot=v,sta=p", false),
        ]
        for (text, said) in after {
            let unsaid = Self.unsaid([before, Self.request(12.1, text + v2)], [Self.hung])
            #expect(unsaid == (said ? [] : ["5.2 → request 1 v2"]), "\(text)")
        }
        let issue = CMCDConformance.check([before, Self.request(12.1, "bl=(0),ot=v,sta=p" + v2)], stalls: [Self.hung]).issues.first { $0.key == "sta" }
        #expect(issue?.description.hasPrefix("no request said the stall at 5.2 s (segment 3 held 8.0 s with 1.2 s of buffer claimed) with a rebuffering state (sta=r), bsa or bsd") == true)
    }

    @Test func notJudgedWithoutCMCDOnBothSides() {
        // Nothing with CMCD after the stall (the player quit), or none before it (it was not sending yet).
        #expect(Self.unsaid([Self.request(0, "bl=0,su," + Self.media), Self.request(4, "bl=1200," + Self.media), Self.request(13, nil)], [Self.hung]) == [])
        #expect(Self.unsaid([Self.request(0, nil), Self.request(13, "bl=0," + Self.media)], [Self.hung]) == [])
        #expect(Self.unsaid([], [Self.hung]) == [])
    }

    @Test func stallsCloseTogetherAreOneEpisodeAndOneBsSaysStallsWithNoRequestBetween() {
        let retried = CMCDKnownStall(time: 12.5, end: 20, cause: "segment 3 held 7.5 s with 0.0 s of buffer claimed")
        let later = CMCDKnownStall(time: 30, end: 31, cause: "the player reported it, 1.0 s long")
        let session = [
            Self.request(4, "bl=1200," + Self.media),
            Self.request(12.2, "bl=0," + Self.media),
            Self.request(20.5, "bl=0,bs," + Self.media),
            Self.request(31.5, "bl=0," + Self.media),
        ]
        // The hang and its retry are one episode, said by request 2's bs; the later stall is not said.
        #expect(Self.unsaid(session, [Self.hung, retried, later]) == ["30.0 → request 3 v1"])
        // Two stalls without a request between them: one request after both says both.
        let apart = CMCDKnownStall(time: 16, end: 17, cause: "the player reported it, 1.0 s long")
        let quiet = [Self.request(4, "bl=1200," + Self.media), Self.request(18, "bl=0,bs," + Self.media)]
        #expect(Self.unsaid(quiet, [CMCDKnownStall(time: 5.2, end: 6, cause: "x"), apart]) == [])
        let unsaid = Self.unsaid([Self.request(4, "bl=1200," + Self.media), Self.request(18, "bl=0," + Self.media)],
                                 [CMCDKnownStall(time: 5.2, end: 6, cause: "x"), apart])
        #expect(unsaid == ["5.2 → request 1 v1", "16.0 → request 1 v1"])
        #expect(CMCDConformance.check([Self.request(4, "bl=1200," + Self.media), Self.request(18, "bl=0," + Self.media)],
                                      stalls: [CMCDKnownStall(time: 5.2, end: 6, cause: "x"), apart]).issues.first { $0.key == "bs" }?.count == 2)
    }
}
