import Addressing
import Foundation
import Chaos
import PlayerReports
import Records
import Testing
@testable import Verdicts

/// `bufferNeverBelow`, `startupWithin` and `cmcdValid`, judged from the CMCD in the records.
@Suite struct CMCDCheckTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func record(_ id: UInt64, at seconds: Double, _ cmcd: String?, kind: ResourceKind = .segment, findings: [String]? = nil) -> RequestRecord {
        RequestRecord(
            id: id, time: start.addingTimeInterval(seconds), session: "tv1", client: "", method: "GET", path: "/\(id)",
            kind: kind, status: 200, cmcd: cmcd.map { .init(text: $0, carriages: ["query"], findings: findings) })
    }

    func check(_ check: Expectation.Check, _ records: [RequestRecord]) -> ExpectationResult {
        let now = Self.start.addingTimeInterval(60)
        let reaction = ReactionReport.analyze(records, now: now)
        return Evaluator.evaluate([Expectation(check)], records: records, reaction: reaction, player: nil, live: false, runEnded: now).results[0]
    }

    static let healthy = [
        record(1, at: 0, #"bl=0,br=800,d=2000,ot=v,sid="a",su"#),
        record(2, at: 1, #"bl=2100,br=800,d=2000,ot=v,sid="a",su"#),
        record(3, at: 2, #"bl=4000,br=800,d=2000,ot=v,sid="a""#),
        record(4, at: 4, #"bl=6000,br=800,d=2000,ot=v,sid="a""#),
    ]

    @Test func bufferNeverBelow() {
        let pass = check(.bufferNeverBelow(.seconds(3)), Self.healthy)
        #expect(pass.passed, "\(pass.observed)")
        #expect(pass.observed == "lowest buffer 4.0 s after it first reached 3.0 s")
        let dipped = Self.healthy + [Self.record(5, at: 6, #"bl=1200,ot=v,sid="a""#)]
        let fail = check(.bufferNeverBelow(.seconds(3)), dipped)
        #expect(!fail.passed && fail.evidence == [5], "\(fail.observed)")
        #expect(fail.observed == "the buffer fell to 1.2 s at 6.0 s (1 request below 3.0 s)")
        // Startup requests' empty buffer is not a dip; a buffer that never got there fails.
        let low = check(.bufferNeverBelow(.seconds(10)), Self.healthy)
        #expect(!low.passed && low.observed == "the buffer never reached 10.0 s (highest 6.0 s)")
        let none = check(.bufferNeverBelow(.seconds(1)), [Self.record(1, at: 0, nil)])
        #expect(!none.passed && none.observed.hasPrefix("no request carried a CMCD buffer length"))
    }

    @Test func startupWithin() {
        #expect(check(.startupWithin(.seconds(3)), Self.healthy).passed)
        let slow = check(.startupWithin(.seconds(1)), Self.healthy)
        #expect(!slow.passed && slow.observed == "started in 2.0 s (the end of its startup (su) requests)")
        #expect(!check(.startupWithin(.seconds(60)), [Self.record(1, at: 0, "bl=100")]).passed, "no startup known: not judged")
    }

    @Test func cmcdValid() {
        let pass = check(.cmcdValid, Self.healthy)
        #expect(pass.passed, "\(pass.observed)")
        let broken = Self.healthy + [Self.record(5, at: 6, #"bl=1200,ot=v,sid="b""#, findings: ["bl in the CMCD query argument: …"])]
        let fail = check(.cmcdValid, broken)
        #expect(!fail.passed && fail.evidence == [5])
        #expect(fail.observed.contains("request 5: bl in the CMCD query argument") && fail.observed.contains("sid changed mid-session"), "\(fail.observed)")
        #expect(!check(.cmcdValid, [Self.record(1, at: 0, nil)]).passed)
    }

    /// `stalls` counts the driver's stalls; when it reported none (or there is no report), the CMCD's.
    @Test func stallsFromCMCDWhenTheDriverReportedNone() {
        let now = Self.start.addingTimeInterval(60)
        let stalled = Self.healthy + [
            Self.record(5, at: 9, #"bl=0,br=800,bs,d=2000,ot=v,sid="a""#),
            Self.record(6, at: 20, #"bl=0,br=800,bs,d=2000,ot=v,sid="a""#),
        ]
        func judge(_ check: Expectation.Check, _ records: [RequestRecord], player: PlayerReport?) -> ExpectationResult {
            Evaluator.evaluate([Expectation(check)], records: records, reaction: ReactionReport.analyze(records, now: now),
                               player: player, live: false, runEnded: now).results[0]
        }
        let native = PlayerReport(player: "avplayer", outcome: .played)
        let fromCMCD = judge(.stalls(atLeast: nil, atMost: 1), stalled, player: native)
        #expect(!fromCMCD.passed && fromCMCD.evidence == [5, 6])
        #expect(fromCMCD.observed == "2 stalls (at 9.0 s, at 20.0 s) (the player's CMCD, bs; its driver reported none)")
        let noReport = judge(.stalls(atLeast: nil, atMost: 2), stalled, player: nil)
        #expect(noReport.passed && noReport.observed == "2 stalls (at 9.0 s, at 20.0 s) (the player's CMCD, bs; no player report)")
        // The driver's own stalls win when it reported any.
        let driver = PlayerReport(player: "hlsjs", outcome: .played, stalls: [.init(at: 9.1, duration: 1.5)])
        let reported = judge(.stalls(atLeast: nil, atMost: 1), stalled, player: driver)
        #expect(reported.passed && reported.observed == "1 stall, 1.5 s (at 9.1 s for 1.5 s) (the player's report)")
        // CMCD without a stall, no report: judged from the CMCD.
        let quiet = judge(.stalls(atLeast: nil, atMost: 0), Self.healthy, player: nil)
        #expect(quiet.passed && quiet.observed == "no stall (the player's CMCD said none; no player report)")
        #expect(judge(.stalls(atLeast: nil, atMost: 0), Self.healthy, player: native).observed == "no stall (the player's report)")
        // v2: one stall said as sta=r, then bs and bsd on the way out, counts once (its sta span).
        let v2 = [
            Self.record(1, at: 0, #"bl=(0),ot=v,sid="a",sta=s,su,v=2"#),
            Self.record(2, at: 4, #"bl=(0),ot=v,sid="a",sta=r,v=2"#),
            Self.record(3, at: 6, #"bl=(2000),bs,bsd=(2000),ot=v,sid="a",sta=p,v=2"#),
        ]
        #expect(judge(.stalls(atLeast: nil, atMost: 0), v2, player: nil).observed == "1 stall, 2.0 s (at 4.0 s for 2.0 s) (the player's CMCD, sta; no player report)")
    }

    /// `cmcdValid` holds a stall the driver reported against the requests after it.
    @Test func cmcdValidFailsWhenAReportedStallWasNeverSaid() {
        let now = Self.start.addingTimeInterval(60)
        let records = Self.healthy + [Self.record(5, at: 8, #"bl=0,br=800,d=2000,ot=v,sid="a""#)]
        let driver = PlayerReport(player: "hlsjs", outcome: .played, stalls: [.init(at: 6.5, duration: 1)])
        let result = Evaluator.evaluate([Expectation(.cmcdValid)], records: records, reaction: ReactionReport.analyze(records, now: now),
                                        player: driver, live: false, runEnded: now).results[0]
        #expect(!result.passed)
        #expect(result.observed == "no request said the stall at 6.5 s (the player reported it, 1.0 s long) with bs (once, first at request 5, 8.0 s)", "\(result.observed)")
        let said = Self.healthy + [Self.record(5, at: 8, #"bl=0,br=800,bs,d=2000,ot=v,sid="a""#)]
        #expect(Evaluator.evaluate([Expectation(.cmcdValid)], records: said, reaction: ReactionReport.analyze(said, now: now),
                                   player: driver, live: false, runEnded: now).results[0].passed)
    }
}
