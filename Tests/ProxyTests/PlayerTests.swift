import Foundation
import Players
import Testing
import TestSupport

/// Real players through the proxy, each by its `Players` driver: they must see exactly what they
/// see from the origin.
@Suite(.serialized) struct PlayerTests {
    static let ffmpeg = ProcessRunner.which("ffmpeg") != nil
    static let gstreamer = ProcessRunner.which("gst-launch-1.0") != nil && ProcessRunner.which("gst-inspect-1.0") != nil

    /// Plays `url` in a work directory of its own (removed after) and returns what the driver said.
    static func play<T>(_ player: String, _ body: (URL) async -> T) async throws -> T {
        try await PresetPlayback.inWorkDirectory(player, body)
    }

    static func ffmpegPlayback(_ url: String, live: Bool = false, seconds: Double? = nil) async throws -> FFmpegDriver.Playback {
        try await play("ffmpeg") { directory in
            await FFmpegDriver(duration: seconds).playback(PlayRequest(url: url, timeout: 180, live: live, workDirectory: directory))
        }
    }

    static func describe(_ playback: FFmpegDriver.Playback) -> String {
        "\(playback.report.outcomeText), \(playback.frames ?? -1) frames\n\(playback.report.log)"
    }

    /// The same frames decoded, and nothing ffmpeg calls an error (no `[error]` line, no HTTP
    /// error, no failed segment): through the proxy as from the origin.
    @Test(.enabled(if: ffmpeg), arguments: ["/vod/ts/master.m3u8", "/vod/fmp4/master.m3u8", "/vod/aes/master.m3u8", "/vod/byterange/master.m3u8"])
    func ffmpegPlaysVODThroughTheProxyWithTheSameFrameCount(master: String) async throws {
        try await ProxyHarness.withDemo { proxy, _ in
            let demo = try #require(proxy.demo)
            let direct = try await Self.ffmpegPlayback(demo.baseURL + master)
            let proxied = try await Self.ffmpegPlayback("http://127.0.0.1:\(proxy.port)/s/ffmpeg\(master)")
            #expect(direct.report.exitStatus == 0, "\(Self.describe(direct))")
            #expect(proxied.report.exitStatus == 0, "\(Self.describe(proxied))")
            #expect(proxied.report.outcome == .played, "\(Self.describe(proxied))")
            #expect((direct.frames ?? 0) > 100)
            #expect(proxied.frames == direct.frames)
            #expect(proxied.report.errors.isEmpty, "ffmpeg complained: \(Self.describe(proxied))")
        }
    }

    @Test(.enabled(if: ffmpeg), arguments: ["/live/ts/master.m3u8", "/live/fmp4/master.m3u8"])
    func ffmpegPlaysLiveThroughTheProxy(master: String) async throws {
        try await ProxyHarness.withDemo { proxy, _ in
            let demo = try #require(proxy.demo)
            let direct = try await Self.ffmpegPlayback(demo.baseURL + master, live: true, seconds: 6)
            let proxied = try await Self.ffmpegPlayback("http://127.0.0.1:\(proxy.port)\(master)", live: true, seconds: 6)
            #expect(direct.report.exitStatus == 0, "\(Self.describe(direct))")
            #expect(proxied.report.exitStatus == 0, "\(Self.describe(proxied))")
            #expect((direct.frames ?? 0) >= 140)
            #expect(proxied.frames == direct.frames)
        }
    }

    /// playbin3 (hlsdemux2) to end of stream, without an `ERROR` from the pipeline.
    @Test(.enabled(if: gstreamer), arguments: ["/vod/ts/master.m3u8", "/vod/fmp4/master.m3u8"])
    func gstreamerPlaysVODThroughTheProxyToEndOfStream(master: String) async throws {
        try await ProxyHarness.withDemo { proxy, _ in
            let report = try await Self.play("gstreamer") { directory in
                await GStreamerDriver(.playbin3).play(PlayRequest(
                    url: "http://127.0.0.1:\(proxy.port)/s/gst\(master)", timeout: 120, live: false, workDirectory: directory))
            }
            #expect(report.outcome == .played, "\(report.outcomeText)\n\(report.log)")
            #expect(report.errors.filter(\.fatal).isEmpty, "\(report.log)")
            // master + video and audio playlists + 12 video and 12 audio segments at least
            let session = try #require(proxy.server.control.sessions().first { $0.id == "gst" })
            #expect(session.requestCount >= 27)
        }
    }

    @Test(.enabled(if: PresetPlayback.browserToolsPresent, "Chromium, chromedriver or python3 is missing"))
    func hlsjsPlaysTheDemoVODThroughTheProxyToTheEnd() async throws {
        try await PresetPlayback.requireReady(PresetPlayback.hlsjsAvailability, "hls.js")
        try await ProxyHarness.withDemo { proxy, _ in
            let playback = try await Self.play("hlsjs") { directory in
                await BrowserDriver.hlsjs.playback(PlayRequest(
                    url: "http://127.0.0.1:\(proxy.port)/s/hlsjs/vod/fmp4/master.m3u8", timeout: 120, live: false, workDirectory: directory))
            }
            await proxy.stop()
            let run = try #require(playback.log, "no log from the hls.js harness: \(playback.report.outcomeText)\n\(playback.report.log)")
            #expect(run.harnessError == nil)
            #expect(run.ended, "hls.js did not reach ended: \(run.events.map(\.event))")
            // Media-level notes such as bufferSeekOverHole come from the content (fMP4 start offsets) and
            // show up direct from the origin too; a network error or a fatal one would be the proxy's.
            let errors = run.events.filter { $0.event == "error" && ($0.type == "networkError" || $0.fatal == true) }
            #expect(errors.isEmpty, "\(errors.map { $0.details ?? "" })")
            #expect(run.events.filter { $0.event == "fragLoaded" }.count >= 10)
            #expect((run.currentTime ?? 0) > 20)
        }
    }
}
