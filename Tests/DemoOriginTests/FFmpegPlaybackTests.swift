import Foundation
import Testing
@testable import DemoOrigin

/// A real player (ffmpeg's HLS demuxer) against the origin on loopback.
@Suite(.serialized) struct FFmpegPlaybackTests {
    /// 24 s at 25 fps, see scripts/make-demo-media.sh.
    static let framesPerVariant = 600
    /// Abort a stuck read instead of hanging the test run (microseconds).
    static let ioTimeout = ["-rw_timeout", "15000000"]

    static func requireTools() throws {
        try #require(ToolRun.isInstalled("ffmpeg") && ToolRun.isInstalled("ffprobe"),
                     "ffmpeg and ffprobe must be installed (Debian: apt-get install ffmpeg)")
    }

    @Test(arguments: DemoOrigin.vodFlavours)
    func ffprobeDecodesEveryFrameOfEveryVariant(flavour: String) async throws {
        try Self.requireTools()
        try await withDemoServer { server in
            let url = "\(server.baseURL)/vod/\(flavour)/master.m3u8"
            let probe = try await ToolRun.run("ffprobe", ["-v", "error"] + Self.ioTimeout + [
                "-count_frames", "-show_entries", "stream=index,codec_type,width,nb_read_frames", "-of", "csv=p=0", url,
            ])
            #expect(probe.status == 0, "ffprobe \(url): \(probe.stderr)")
            #expect(probe.stderr.isEmpty, "ffprobe \(url) reported: \(probe.stderr)")
            // ffprobe lists each stream once per program it belongs to: keep one row per stream index.
            var streams: [String: [String]] = [:]
            for row in probe.stdout.split(separator: "\n") {
                let fields = row.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                if fields.count >= 3 { streams[fields[0]] = Array(fields.dropFirst()) }
            }
            let video = streams.values.filter { $0.first == "video" }.map { $0.dropFirst().joined(separator: ",") }.sorted()
            #expect(video == ["416,600", "640,600", "960,600"], "\(url): \(probe.stdout)")
            // 24 s less 50 ms of 48 kHz AAC in 1024-sample frames: 1124 frames per language.
            let audio = streams.values.filter { $0.first == "audio" }.map { $0.last ?? "" }
            #expect(audio == ["1124", "1124"], "\(url): \(probe.stdout)")
        }
    }

    @Test(arguments: DemoOrigin.vodFlavours)
    func ffmpegPlaysTheMasterToTheEnd(flavour: String) async throws {
        try Self.requireTools()
        try await withDemoServer { server in
            let url = "\(server.baseURL)/vod/\(flavour)/master.m3u8"
            let run = try await ToolRun.run("ffmpeg", ["-nostdin", "-v", "error"] + Self.ioTimeout + [
                "-i", url, "-map", "0:v:0", "-map", "0:a:0", "-f", "framecrc", "-",
            ])
            #expect(run.status == 0, "ffmpeg \(url): \(run.stderr)")
            #expect(run.stderr.isEmpty, "ffmpeg \(url) reported: \(run.stderr)")
            let videoFrames = run.stdout.split(separator: "\n").filter { $0.hasPrefix("0,") }.count
            #expect(videoFrames == Self.framesPerVariant, "\(url)")
        }
    }

    @Test(arguments: DemoOrigin.liveFlavours)
    func ffmpegReadsTheLiveMasterForAFewSeconds(flavour: String) async throws {
        try Self.requireTools()
        try await withDemoServer { server in
            let url = "\(server.baseURL)/live/\(flavour)/master.m3u8"
            let run = try await ToolRun.run("ffmpeg", ["-nostdin", "-v", "error"] + Self.ioTimeout + [
                "-i", url, "-map", "0:v:0", "-map", "0:a:0", "-t", "4", "-f", "framecrc", "-",
            ])
            #expect(run.status == 0, "ffmpeg \(url): \(run.stderr)")
            #expect(run.stderr.isEmpty, "ffmpeg \(url) reported: \(run.stderr)")
            // -t counts from the earliest stream start (audio here), so video may lose a frame or two.
            let videoFrames = run.stdout.split(separator: "\n").filter { $0.hasPrefix("0,") }.count
            #expect((97...100).contains(videoFrames), "\(url): \(videoFrames) frames")
        }
    }

    /// The clock is frozen with the live edge just after a loop point, so ffmpeg's start
    /// (three segments from the end) crosses the EXT-X-DISCONTINUITY. For fMP4 this also
    /// proves the loop's decode times keep increasing: ffmpeg drops fMP4 fragments whose
    /// decode time goes backwards, and would then wait forever for the missing frames.
    @Test(arguments: DemoOrigin.liveFlavours)
    func ffmpegPlaysAcrossTheLoopDiscontinuity(flavour: String) async throws {
        try Self.requireTools()
        let clock = TestClock()
        try await withDemoServer(clock: clock.function) { server in
            clock.advance(by: 2 * 8)  // latest MSN 13: window 8...13, loop point at 12
            let url = "\(server.baseURL)/live/\(flavour)/master.m3u8"
            let playlist = try await RawHTTPClient.get(port: server.port, "/live/\(flavour)/v0/index.m3u8").text
            #expect(playlist.contains("#EXT-X-DISCONTINUITY\n#EXT-X-PROGRAM-DATE-TIME:"))
            let run = try await ToolRun.run("ffmpeg", ["-nostdin", "-v", "error"] + Self.ioTimeout + [
                "-i", url, "-map", "0:v:0", "-frames:v", "125", "-f", "framecrc", "-",
            ])
            #expect(run.status == 0, "ffmpeg \(url): \(run.stderr)")
            let videoFrames = run.stdout.split(separator: "\n").filter { $0.hasPrefix("0,") }.count
            #expect(videoFrames == 125, "\(url): \(run.stderr)")
        }
    }

    /// Live fMP4 loop 2 starts 48 s after loop 0 in media time, audio and video alike.
    @Test(arguments: ["v1", "audio/fr"])
    func liveFMP4LoopsKeepMediaTimeIncreasing(rendition: String) async throws {
        try Self.requireTools()
        let clock = TestClock()
        let origin = try DemoOrigin(clock: clock.function)
        clock.advance(by: 2 * 30)
        let initSegment = try BundledMedia.data("fmp4/\(rendition)/init.mp4")
        func firstTime(_ segment: Data) async throws -> Double {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("demo-\(UUID().uuidString).mp4")
            defer { try? FileManager.default.removeItem(at: file) }
            try (initSegment + segment).write(to: file)
            let probe = try await ToolRun.run("ffprobe", ["-v", "error", "-show_entries", "packet=dts_time",
                                                          "-of", "csv=p=0", file.path])
            let times = probe.stdout.split(separator: "\n").compactMap { Double($0.split(separator: ",")[0]) }
            return try #require(times.min(), "ffprobe: \(probe.stderr)")
        }
        let vod = try BundledMedia.data("fmp4/\(rendition)/s003.m4s")
        let live = origin.respond(method: "GET", path: "/live/fmp4/\(rendition)/seg-27.m4s", headers: []).body
        #expect(live.count == vod.count)
        #expect(try await firstTime(live) - firstTime(vod) == 48)
        let loopZero = origin.respond(method: "GET", path: "/live/fmp4/\(rendition)/seg-3.m4s", headers: []).body
        #expect(loopZero == vod)
    }

    /// Every byte range of the I-frame playlists, fetched with Range, decodes to exactly one frame.
    @Test func iFramePlaylistRangesHoldOneDecodableFrameEach() async throws {
        try Self.requireTools()
        try await withDemoServer { server in
            for variant in ["v0", "v1", "v2"] {
                let playlist = try await RawHTTPClient.get(port: server.port, "/vod/ts/\(variant)/iframes.m3u8").text
                #expect(playlist.contains("#EXT-X-I-FRAMES-ONLY"))
                let lines = playlist.split(separator: "\n").map(String.init)
                var ranges = 0
                for (index, line) in lines.enumerated() where line.hasPrefix("#EXT-X-BYTERANGE:") {
                    let spec = line.dropFirst("#EXT-X-BYTERANGE:".count).split(separator: "@").compactMap { Int($0) }
                    try #require(spec.count == 2 && index + 1 < lines.count)
                    let target = "/vod/ts/\(variant)/\(lines[index + 1])"
                    let slice = try await RawHTTPClient.get(
                        port: server.port, target, headers: ["Range: bytes=\(spec[1])-\(spec[1] + spec[0] - 1)"])
                    #expect(slice.status == 206)
                    let file = FileManager.default.temporaryDirectory.appendingPathComponent("demo-\(UUID().uuidString).ts")
                    defer { try? FileManager.default.removeItem(at: file) }
                    try Data(slice.body).write(to: file)
                    let probe = try await ToolRun.run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v",
                                                                  "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", file.path])
                    #expect(probe.stdout.split(separator: "\n").first == "1", "\(target) \(line): \(probe.stdout)")
                    ranges += 1
                }
                #expect(ranges == 12)
            }
        }
    }
}
