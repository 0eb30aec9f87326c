import Foundation
import PlayerReports
import Players
import Records
@testable import Runs
import Verdicts

/// Hand-built results of runs, for the writers (no player, no proxy).
enum CellFixtures {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func record(_ id: UInt64, msn: Int, status: Int, actions: [RequestRecord.Action] = [], rules: [String] = []) -> RequestRecord {
        RequestRecord(
            id: id, time: start.addingTimeInterval(Double(id)), session: "s", client: "127.0.0.1:5000", method: "GET",
            path: "/s/s/v2/seg\(msn).ts", kind: .segment, variant: 2, rendition: nil, iFrameVariant: nil, copy: nil,
            msn: msn, part: nil, upstream: nil, matchedRules: rules, decidingRules: .init(), actions: actions,
            status: status, bytesSent: status == 200 ? 1000 : 0, ending: .complete, duration: 0.01,
            requestHeaders: [], responseHeaders: [])
    }

    static func passed(_ scenario: String = "status-503", player: String = "hlsjs") -> CellResult {
        let result = ExpectationResult(
            expectation: "retried the faulted resource or switched down", check: "anyOf", documented: true,
            passed: true, observed: "1 retry of segment 8 of variant 2 (503, 200)", evidence: [1, 2])
        return cell(scenario, player, .passed, Verdict(results: [result], faultInjected: true), records: [])
    }

    static func failed(_ scenario: String = "status-503", player: String = "gstreamer") -> CellResult {
        let failing = ExpectationResult(
            expectation: "retried the faulted resource at most 10 times", check: "retried", documented: false,
            players: [player], passed: false, observed: "61 retries of segment 8 of variant 2 (503 ×61) <&>", evidence: [7, 8])
        let holding = ExpectationResult(
            expectation: "never requested a GAP segment", check: "neverRequested", documented: true, passed: true,
            observed: "nothing to avoid")
        let records = [
            record(7, msn: 8, status: 503, actions: [.init(.status(503), rule: "status-503/top-msn8-10-503")], rules: ["status-503/top-msn8-10-503"]),
            record(8, msn: 8, status: 503, actions: [.init(.status(503), rule: "status-503/top-msn8-10-503")], rules: ["status-503/top-msn8-10-503"]),
        ]
        return cell(scenario, player, .failed, Verdict(results: [failing, holding], faultInjected: true), records: records)
    }

    static func couldNotRun(player: String = "vlc") -> CellResult {
        CellResult.couldNotRun(
            scenario: "status-503", reference: "error-paths §1", player: player,
            problem: "vlc is not available (cvlc not found); install it with: apt-get install -y vlc-bin vlc-plugin-base")
    }

    private static func cell(_ scenario: String, _ player: String, _ status: CellResult.Status, _ verdict: Verdict, records: [RequestRecord]) -> CellResult {
        let report = PlayerReport(
            player: player, version: "\(player) 1.0", outcome: status == .passed ? .played : .stalled,
            reason: status == .passed ? nil : "buffering 0% for 50 s", seconds: 12, log: "line 1\nline 2\u{1}\n")
        return CellResult(
            scenario: scenario, reference: "error-paths §1: 503", player: player, playerVersion: report.version,
            session: "\(scenario)-\(player)-1", url: "http://127.0.0.1:1/s/\(scenario)-\(player)-1/vod/ts/master.m3u8",
            live: false, status: status, problem: nil, report: report, verdict: verdict, reaction: nil,
            reactionWords: status == .passed ? "retried ×1, played" : "retried ×61; stalled",
            evidenceRecords: records, requests: 40, faultedRequests: 3,
            evidence: "evidence/\(scenario)-\(player)-1", seconds: 12.5)
    }
}
