import Foundation
import Testing
import TestSupport

/// Real players through the proxy: they must see exactly what they see from the origin.
@Suite(.serialized) struct PlayerTests {
    static let ffmpeg = which("ffmpeg")
    static let ffprobe = which("ffprobe")

    /// Decoded video frames of the first video stream, as ffmpeg counts them.
    static func ffmpegFrames(_ url: String, seconds: Int? = nil) async throws -> (frames: Int, result: CommandResult) {
        var arguments = ["-hide_banner", "-nostdin", "-v", "error", "-i", url]
        if let seconds { arguments += ["-t", String(seconds)] }
        arguments += ["-map", "0:v:0", "-f", "null", "-", "-progress", "pipe:1"]
        let result = try await runCommand(try #require(ffmpeg), arguments, timeout: 180)
        let frames = result.stdout.split(separator: "\n").compactMap { line -> Int? in
            line.hasPrefix("frame=") ? Int(line.dropFirst(6)) : nil
        }.last ?? -1
        return (frames, result)
    }

    @Test(.enabled(if: ffmpeg != nil), arguments: ["/vod/ts/master.m3u8", "/vod/fmp4/master.m3u8", "/vod/aes/master.m3u8", "/vod/byterange/master.m3u8"])
    func ffmpegPlaysVODThroughTheProxyWithTheSameFrameCount(master: String) async throws {
        let proxy = try await ProxyHarness.startWithDemo()
        let demo = try #require(proxy.demo)
        let direct = try await Self.ffmpegFrames(demo.baseURL + master)
        let proxied = try await Self.ffmpegFrames("http://127.0.0.1:\(proxy.port)/s/ffmpeg\(master)")
        #expect(direct.result.status == 0, "\(direct.result.stderr)")
        #expect(proxied.result.status == 0, "\(proxied.result.stderr)")
        #expect(direct.frames > 100)
        #expect(proxied.frames == direct.frames)
        #expect(proxied.result.stderr.isEmpty, "ffmpeg complained: \(proxied.result.stderr)")
        await proxy.stop()
    }

    @Test(.enabled(if: ffmpeg != nil), arguments: ["/live/ts/master.m3u8", "/live/fmp4/master.m3u8"])
    func ffmpegPlaysLiveThroughTheProxy(master: String) async throws {
        let proxy = try await ProxyHarness.startWithDemo()
        let demo = try #require(proxy.demo)
        let direct = try await Self.ffmpegFrames(demo.baseURL + master, seconds: 6)
        let proxied = try await Self.ffmpegFrames("http://127.0.0.1:\(proxy.port)\(master)", seconds: 6)
        #expect(direct.result.status == 0, "\(direct.result.stderr)")
        #expect(proxied.result.status == 0, "\(proxied.result.stderr)")
        #expect(direct.frames >= 140)
        #expect(proxied.frames == direct.frames)
        await proxy.stop()
    }

    static let gstreamer = which("gst-launch-1.0")

    @Test(.enabled(if: gstreamer != nil), arguments: ["/vod/ts/master.m3u8", "/vod/fmp4/master.m3u8"])
    func gstreamerPlaysVODThroughTheProxyToEndOfStream(master: String) async throws {
        let proxy = try await ProxyHarness.startWithDemo()
        let result = try await runCommand(
            try #require(Self.gstreamer),
            ["playbin3", "uri=http://127.0.0.1:\(proxy.port)/s/gst\(master)",
             "video-sink=fakesink sync=false", "audio-sink=fakesink sync=false"],
            timeout: 120)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("Got EOS"))
        #expect(!result.stdout.contains("ERROR") && !result.stderr.contains("ERROR"), "\(result.stderr)")
        // master + video and audio playlists + 12 video and 12 audio segments at least
        let session = try #require(proxy.server.sessions.all.first { $0.id == "gst" })
        #expect(session.requestCount >= 27)
        await proxy.stop()
    }

    static let hlsjsHarness: String? = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let script = root.appendingPathComponent("Tests/Players/hlsjs.py").path
        let library = root.appendingPathComponent(".build-players/hls.mjs").path
        guard which("chromium") != nil, which("chromedriver") != nil,
            FileManager.default.fileExists(atPath: library) else { return nil }
        return script
    }()

    @Test(.enabled(if: hlsjsHarness != nil))
    func hlsjsPlaysTheDemoVODThroughTheProxyToTheEnd() async throws {
        let proxy = try await ProxyHarness.startWithDemo()
        let run = try await HlsjsPlayer.play("http://127.0.0.1:\(proxy.port)/s/hlsjs/vod/fmp4/master.m3u8", timeout: 120)
        #expect(run.ended, "hls.js did not reach ended: \(run.events.map(\.event))")
        // Media-level notes such as bufferSeekOverHole come from the content (fMP4 start offsets) and
        // show up direct from the origin too; a network error or a fatal one would be the proxy's.
        let errors = run.events.filter { $0.event == "error" && ($0.type == "networkError" || $0.fatal == true) }
        #expect(errors.isEmpty, "\(errors.map { $0.details ?? "" })")
        #expect(run.events.filter { $0.event == "fragLoaded" }.count >= 10)
        #expect(run.currentTime > 20)
        await proxy.stop()
    }
}
