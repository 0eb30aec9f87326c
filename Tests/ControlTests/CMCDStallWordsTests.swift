import Foundation
import Records
import Testing
@testable import Control

/// A stall the player's CMCD never said, in `GET /api/sessions/{id}/cmcd` and in the report's
/// words; a replayed HAR's field player in the report's words.
@Suite struct CMCDStallWordsTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func segment(_ id: UInt64, at seconds: Double, _ cmcd: String, hang: Double? = nil) -> RequestRecord {
        RequestRecord(
            id: id, time: start.addingTimeInterval(seconds), session: "p1", client: "", method: "GET", path: "/v0/s\(id).ts",
            kind: .segment, variant: 0, msn: Int(id), status: hang == nil ? 200 : nil, ending: hang == nil ? .complete : .hang,
            duration: hang ?? 0.1, cmcd: .init(text: cmcd, carriages: ["query"]))
    }

    static let media = "br=400,d=2000,ot=v,sid=\"s-1\""
    static let records = [
        segment(1, at: 0, "bl=0,su," + media),
        segment(2, at: 2, "bl=3000," + media),
        segment(3, at: 4, "bl=1500," + media, hang: 6),
        segment(4, at: 10.5, "bl=0," + media),
    ]

    @Test func theConformanceRouteNamesTheStallAndTheIssue() throws {
        let answer = ConformanceJSON(session: "p1", CMCDSessionConformance(Self.records))
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(answer)) as? [String: Any])
        #expect(object["valid"] as? Bool == false)
        let stalls = try #require(object["stalls"] as? [[String: Any]])
        #expect(stalls.count == 1 && stalls[0]["time"] as? Double == 5.5 && stalls[0]["end"] as? Double == 10)
        #expect(stalls[0]["cause"] as? String == "segment 3 of variant 0 held 6.0 s with 1.5 s of buffer claimed")
        let issues = try #require(object["issues"] as? [[String: Any]])
        let issue = try #require(issues.first { $0["kind"] as? String == "starvationNotSent" }, "\(issues)")
        #expect(issue["key"] as? String == "bs" && issue["count"] as? Int == 1 && issue["firstRequest"] as? Int == 4)
        #expect(issue["words"] as? String
            == "no request said the stall at 5.5 s (segment 3 of variant 0 held 6.0 s with 1.5 s of buffer claimed) with bs (once, first at request 4, 10.5 s)")
    }

    @Test func theReportWordsSayTheUnsaidStallAndTheFieldPlayer() {
        var report = ReactionReport.analyze(Self.records, now: Self.start.addingTimeInterval(20))
        report.addFieldPlayer(PlayerTimeline.build([
            Self.segment(1, at: 0, "bl=0,su," + Self.media), Self.segment(2, at: 3, "bl=400," + Self.media),
            Self.segment(3, at: 7, "bl=2000,bs," + Self.media),
        ]))
        let findings = ReportWords(report).findings.filter { $0.label.contains("CMCD") }
        #expect(findings.map(\.label) == ["player (CMCD)", "CMCD conformance", "field player (CMCD)"])
        #expect(findings[1].words.hasPrefix("no request said the stall at 5.5 s") && findings[1].tone == .bad)
        #expect(findings[2].words == "lowest 0.0 s · 1 stall · started in 3.0 s" && findings[2].records == [])
    }
}
