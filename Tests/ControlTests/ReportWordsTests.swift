import Foundation
import Records
import Testing
@testable import Control

/// The report's findings in words (`words` of `GET /api/sessions/{id}/report`), which the dashboard
/// shows as they are.
@Suite struct ReportWordsTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func segment(_ msn: Int, variant: Int) -> ReactionReport.Resource {
        .init(kind: .segment, variant: variant, msn: msn, path: "/s/a/v\(variant)/s\(msn).ts")
    }

    @Test func aFaultRetriedThenASwitchDownAreSaidInTheReportsOrder() throws {
        let fault = ReactionReport.Incident(record: 7, time: start, resource: segment(8, variant: 2), status: 503, ending: .complete, actions: [])
        let report = ReactionReport(
            session: "a", requests: 12, firstFault: fault, firstFailure: fault,
            firstReaction: .init(kind: .retry, time: start + 1, after: 1.04, records: [7, 8]),
            switches: [.init(time: start + 3, from: 2, to: 1, direction: .down, basis: .bandwidth, records: [8, 9, 10])],
            retries: [.init(resource: segment(8, variant: 2), retries: 2, spacing: [1.0, 1.1], succeeded: false, statuses: [503, 503, nil], records: [7, 8, 9])],
            stop: .init(kind: .gaveUp, time: start + 5, idle: 12, lastSegment: segment(9, variant: 1), records: [11]),
            failures: [7, 8, 9], outcome: .gaveUp, notes: ["a note"], verdict: "…")
        let words = ReportWords(report)
        #expect(words.outcome == "gave up")
        #expect(words.findings.map(\.label) == ["first fault", "first reaction", "1 switch", "retried", "stop", "failed", ""])
        #expect(words.findings.map(\.words) == [
            "segment 8 of variant 2 → 503", "retry after 1.0 s", "down to variant 1",
            "segment 8 of variant 2 twice, 1.1 s apart [503 503 —] → never succeeded",
            "gave up after segment 9 of variant 1, idle 12.0 s", "3 requests", "a note",
        ])
        #expect(words.findings[0].records == [7] && words.findings[0].time == start)
        #expect(words.findings[2].records == [10])
        #expect(words.findings.last?.tone == .note)
    }

    /// An incident's actions are said by their words, but the status the finding names already.
    @Test func anIncidentSaysItsActionsButItsStatus() {
        let incident = ReactionReport.Incident(
            record: 4, time: start, resource: segment(8, variant: 2), status: 503, ending: .complete,
            actions: [.init(.delay(seconds: 2), rule: "slow/all"), .init(.status(503), rule: "outage/seg")])
        #expect(ReportWords.incident("first fault", incident).words == "segment 8 of variant 2 → 503 · delay 2s")
    }

        @Test func aFailureThatIsNotTheFaultHasItsOwnLineAndManySwitchesAreShortened() throws {
        let fault = ReactionReport.Incident(record: 3, time: start, resource: segment(4, variant: 0), status: 200, ending: .complete, actions: [])
        let failure = ReactionReport.Incident(record: 5, time: start + 1, resource: segment(5, variant: 0), status: nil, ending: .hang, actions: [])
        let switches = (0..<8).map { i in
            ReactionReport.VariantSwitch(time: start + Double(i), from: i % 2, to: (i + 1) % 2, direction: i % 2 == 0 ? .up : .down, basis: .index, records: [UInt64(20 + i)])
        }
        let words = ReportWords(ReactionReport(requests: 30, firstFault: fault, firstFailure: failure, switches: switches, outcome: .recovered))
        #expect(words.outcome == "recovered")
        #expect(words.findings.map(\.words).prefix(2) == ["segment 4 of variant 0 → 200", "segment 5 of variant 0 → no response (hang)"])
        let line = try #require(words.findings.first { $0.label == "8 switches" })
        #expect(line.words == "up to variant 1 (by index), then down to variant 0 (by index), then up to variant 1 (by index), then …, then up to variant 1 (by index), then down to variant 0 (by index)")
        #expect(line.records == [20, 21, 22, 26, 27])
    }

    @Test func theAnswerIsTheReportWithItsWords() throws {
        let answer = ReportAnswer(ReactionReport(session: "a", requests: 0, verdict: "No requests."))
        let object = try #require(try JSONSerialization.jsonObject(with: JSONOutput.data(answer)) as? [String: Any])
        #expect(object["verdict"] as? String == "No requests.")
        #expect(object["session"] as? String == "a")
        let words = try #require(object["words"] as? [String: Any])
        #expect(words["outcome"] as? String == "clean")
        #expect((words["findings"] as? [Any])?.isEmpty == true)
    }
}
