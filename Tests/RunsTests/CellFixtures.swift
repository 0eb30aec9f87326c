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

    /// hls.js on `link-drop-below-lowest`: down 2.3 s after the fall, back up 16.6 s after the
    /// recovery, one stall; the figures a link cell shows.
    static func linked(_ scenario: String = "link-drop-below-lowest", player: String = "hlsjs") -> CellResult {
        let fall = AdaptationFigures.Fall(
            at: 15, variant: 2, bandwidth: 653_142, capacity: 112_627, below: 20, wentDownAfter: 2.3, recoveredAfter: 20,
            neededUp: true, recoveredFor: 25, wentUpAfter: 16.6)
        let figures = AdaptationFigures(
            from: 1, to: 60, variants: [], switches: 3, switchesPerMinute: 3.05, falls: [fall], stalls: 1, stallSeconds: 9.8,
            utilisation: 0.76, overshoot: 1.5, topBandwidth: 653_142)
        let held = ExpectationResult(
            expectation: "switched down within 10 s after the link fell below the variant in use", check: "switchedDown",
            documented: true, passed: true, observed: "down 2.3 s after")
        var result = cell(scenario, player, .passed, Verdict(results: [held], passed: true, summary: "", adaptation: figures), records: [])
        result.reactionWords = "down-switch 2→0 → up-switch 0→2; played; " + figures.words
        result.live = true
        return result
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
