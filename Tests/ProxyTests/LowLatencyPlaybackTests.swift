import Foundation
import Players
import PlayerReports
import Records
import Testing

/// The demo's LL-HLS stream through the proxy, judged as a user would. hls.js plays it as LL
/// (blocking playlist reloads and parts, each answered 200 by the proxy) under 3 s behind the live
/// edge (issue 24's acceptance criterion); ffmpeg plays it as ordinary live. Each as
/// `PlayerDriver.lowLatency` says.
@Suite(.serialized) struct LowLatencyPlaybackTests {
    static let seconds = 20.0

    @Test(.enabled(if: PresetPlayback.browserToolsPresent, "Chromium, chromedriver or python3 is missing"), .timeLimit(.minutes(3)))
    func hlsjsPlaysTheLowLatencyDemoThroughTheProxyUnderThreeSecondsBehindTheLiveEdge() async throws {
        #expect(BrowserDriver.hlsjs.lowLatency == .parts)
        try await PresetPlayback.requireReady(PresetPlayback.hlsjsAvailability, "hls.js")
        try await ProxyHarness.withDemo { proxy, _ in
            let playback = try await PlayerTests.play("hlsjs") { directory in
                await BrowserDriver.hlsjs.playback(PlayRequest(
                    url: "http://127.0.0.1:\(proxy.port)/s/hlsjs-ll/ll/master.m3u8", timeout: Self.seconds, live: true,
                    workDirectory: directory))
            }
            let records = proxy.server.control.records(session: "hlsjs-ll")
            await proxy.stop()
            let report = playback.report
            let described = "\(report.summaryText)\n\(report.log)"

            #expect(report.outcome == .played, "\(described)")
            #expect(report.errors.filter(\.fatal).isEmpty, "\(described)")
            #expect((report.position ?? 0) > 0, "\(described)")

            // Blocking reloads (about one per 0.4 s part, for the variant and the audio rendition) and
            // parts, answered 200. hls.js cancels what it no longer needs when it switches variants
            // and when the page closes: those end as client aborts without a status.
            let blocking = records.filter { $0.path.contains("_HLS_msn=") }
            let parts = records.filter { $0.part != nil }
            for (name, requests) in [("blocking reloads", blocking), ("part requests", parts)] {
                let answered = requests.filter { $0.status == 200 }
                #expect(answered.count >= 20, "\(answered.count) of \(requests.count) \(name) answered 200, in \(records.count) requests")
                let failed = requests.filter { $0.status != 200 && $0.ending != .clientAbort }
                #expect(failed.isEmpty, "\(name) not answered 200:\n\(Self.lines(failed))")
            }

            let latency = try #require(report.liveLatency, "no latency sample from hls.js: \(described)")
            let samples = (playback.log?.events ?? []).filter { $0.event == "latency" }.compactMap(\.latency)
            #expect(latency.samples >= 10, "\(samples)")
            #expect(latency.median < 3, "hls.js's live latency \(latency.text); samples: \(samples)")
            print("hls.js on /ll/ through the proxy: live latency \(latency.text)")
        }
    }

    /// ffmpeg 5.1 reads the playlists as ordinary live: whole segments once complete, plain reloads.
    @Test(.enabled(if: PresetPlayback.ffmpegInstalled, "ffmpeg is missing"), .timeLimit(.minutes(2)))
    func ffmpegPlaysTheLowLatencyDemoAsOrdinaryLive() async throws {
        guard case .wholeSegments = FFmpegDriver().lowLatency else {
            Issue.record("the catalogue says ffmpeg plays LL-HLS as \(FFmpegDriver().lowLatency)")
            return
        }
        try await ProxyHarness.withDemo { proxy, _ in
            let playback = try await PlayerTests.ffmpegPlayback("http://127.0.0.1:\(proxy.port)/s/ffmpeg-ll/ll/master.m3u8", live: true, seconds: 6)
            let records = proxy.server.control.records(session: "ffmpeg-ll")
            await proxy.stop()
            #expect(playback.report.outcome == .played, "\(PlayerTests.describe(playback))")
            #expect((playback.frames ?? 0) >= 140, "6 s at 25 fps: \(PlayerTests.describe(playback))")
            let segments = records.filter { $0.path.contains("/seg-") && [200, 206].contains($0.status) }
            #expect(segments.count >= 3, "\(Self.lines(records))")
            #expect(records.allSatisfy { $0.part == nil && !$0.path.contains("_HLS_") }, "\(Self.lines(records))")
        }
    }

    static func lines(_ records: [RequestRecord]) -> String {
        records.prefix(10).map(RecordLine.plain).joined(separator: "\n")
    }
}
