import Chaos
import Foundation
import Players
import Proxy
import Records
import Testing

/// hls.js with CMCD on, through the proxy: every request says the player's buffer, the proxy's
/// player timeline has it, and a stall made on purpose (a segment that hangs) shows in it.
/// (Named …PlayerTests so that scripts/test.sh runs it with the player suites.)
@Suite(.serialized) struct CMCDPlayerTests {
    static let hang = try! RuleDecoder.decode(Array(#"""
        {"name": "hang-4", "rules": [{"id": "hang", "match": {"kind": "segment", "msn": 4}, "action": {"hang": "8s"}}]}
        """#.utf8), file: "test")

    @Test(.enabled(if: PresetPlayback.browserToolsPresent, "Chromium, chromedriver or python3 is missing"),
          arguments: [BrowserDriver.CMCDCarriage.query, .headers])
    func hlsjsSaysItsBufferAndAHangShowsAsAStall(carriage: BrowserDriver.CMCDCarriage) async throws {
        try await PresetPlayback.requireReady(PresetPlayback.hlsjsAvailability, "hls.js")
        try await ProxyHarness.withDemo { proxy, _ in
            let control = proxy.server.control
            control.openSession("cm", scenario: Self.hang)
            let playback = try await PresetPlayback.inWorkDirectory("hlsjs") { directory in
                await BrowserDriver(engine: .hlsjs, cmcd: carriage).playback(PlayRequest(
                    url: "http://127.0.0.1:\(proxy.port)/s/cm/vod/ts/master.m3u8", timeout: 60, live: false, workDirectory: directory))
            }
            control.flushRecords()
            let records = control.records(session: "cm")
            let timeline = control.playerTimeline(session: "cm")
            await proxy.stop()
            let log = try #require(playback.log, "\(playback.report.outcomeText)")
            #expect(log.harnessError == nil)

            // CMCD on segment and playlist requests, in the carriage asked for.
            let segments = records.filter { $0.kind == .segment && $0.status == 200 }
            let playlists = records.filter { $0.kind == .media || $0.kind == .master }
            #expect(!segments.isEmpty && segments.allSatisfy { $0.cmcd != nil }, "segments without CMCD: \(segments.filter { $0.cmcd == nil }.map(\.path))")
            #expect(playlists.contains { $0.cmcd != nil }, "no playlist request carried CMCD")
            let inQuery = segments.contains { $0.path.contains("CMCD=") }
            #expect(inQuery == (carriage == .query), "CMCD in the query: \(inQuery), asked for \(carriage)")

            // The buffer it reported is plausible: present, never negative, under a minute.
            let buffers = timeline.points.compactMap(\.bufferLength)
            #expect(buffers.count >= 5, "\(timeline.points.count) points")
            #expect(buffers.allSatisfy { (0..<60_000).contains($0) } && buffers.contains { $0 > 0 }, "\(buffers)")

            // The segment that hung for 8 s left it without buffer: its next requests said so.
            #expect(records.contains { $0.msn == 4 && $0.ending == .hang })
            #expect(!timeline.stalls.isEmpty, "no stall in the timeline; points: \(timeline.points.suffix(12))")
            #expect(log.events.contains { $0.event == "waiting" }, "hls.js never waited:\n\(log.summary)")

            // Beside the claim, the truth: the page's own buffer every 250 ms, empty at the stall.
            let truth = try #require(playback.report.buffer, "no buffer samples from the page")
            #expect(truth.count >= 20 && truth.contains { $0.ahead > 1 }, "\(truth.count) samples")
            #expect(truth.contains { $0.ahead < 0.5 && $0.position > 1 }, "the buffer never ran out after the start")
        }
    }
}
