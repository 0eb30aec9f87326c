import Foundation
import Testing
@testable import DemoOrigin
import TestSupport

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

    /// `/ll/` included: ffmpeg reads LL-HLS as ordinary live (it ignores the part tags).
    @Test(arguments: DemoOrigin.liveFlavours.map { "/live/\($0)/master.m3u8" } + ["/ll/master.m3u8"])
    func ffmpegReadsTheLiveMasterForAFewSeconds(master: String) async throws {
        try Self.requireTools()
        try await withDemoServer { server in
            let url = server.baseURL + master
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
    ///
    /// With audio mapped too, ffmpeg interleaves the video and audio renditions by timestamp,
    /// which only works when the loop's timestamps keep increasing (clear flavours); the
    /// encrypted flavour restarts at zero, so it is checked with video alone.
    @Test(arguments: [("ts", true), ("fmp4", true), ("aes", false)])
    func ffmpegPlaysAcrossTheLoopDiscontinuity(flavour: String, withAudio: Bool) async throws {
        try Self.requireTools()
        let clock = TestClock()
        try await withDemoServer(clock: clock.function) { server in
            clock.advance(by: 2 * 8)  // latest MSN 13: window 8...13, loop point at 12
            let url = "\(server.baseURL)/live/\(flavour)/master.m3u8"
            let playlist = try await RawHTTPClient.get(port: server.port, "/live/\(flavour)/v0/index.m3u8").text
            #expect(playlist.contains("#EXT-X-DISCONTINUITY\n#EXT-X-PROGRAM-DATE-TIME:"))
            let run = try await ToolRun.run("ffmpeg", ["-nostdin", "-v", "error"] + Self.ioTimeout + [
                "-i", url, "-map", "0:v:0"] + (withAudio ? ["-map", "0:a:0"] : []) + [
                "-frames:v", "125", "-f", "framecrc", "-",
            ])
            #expect(run.status == 0, "ffmpeg \(url): \(run.stderr)")
            let videoFrames = run.stdout.split(separator: "\n").filter { $0.hasPrefix("0,") }.count
            #expect(videoFrames == 125, "\(url): \(run.stderr)")
        }
    }

    /// Clear live loops keep media time increasing: loop 2 starts 48 s after loop 0, audio and
    /// video alike, and loop 1 continues loop 0 without a continuity-counter error.
    @Test(arguments: [("fmp4", "v1", "m4s"), ("fmp4", "audio/fr", "m4s"), ("ts", "v1", "ts"), ("ts", "audio/fr", "ts")])
    func liveLoopsKeepMediaTimeIncreasing(flavour: String, rendition: String, ext: String) async throws {
        try Self.requireTools()
        let clock = TestClock()
        let origin = try DemoOrigin(clock: clock.function)
        clock.advance(by: 2 * 30)
        let initSegment = ext == "m4s" ? try BundledMedia.data("\(flavour)/\(rendition)/init.mp4") : Data()
        func probe(_ media: Data) async throws -> (first: Double, last: Double, warnings: String) {
            let run = try await withTemporaryFolder("demo") { folder in
                let file = try folder.file("segment.\(ext == "m4s" ? "mp4" : "ts")", [UInt8](initSegment + media))
                return try await ToolRun.run("ffprobe", ["-v", "warning", "-show_entries", "packet=dts_time", "-of", "csv=p=0", file])
            }
            let times = run.stdout.split(separator: "\n").compactMap { Double($0.split(separator: ",")[0]) }
            return (try #require(times.min(), "ffprobe: \(run.stderr)"), times.max() ?? 0, run.stderr)
        }
        func live(_ msn: Int) -> Data {
            origin.respond(method: "GET", path: "/live/\(flavour)/\(rendition)/seg-\(msn).\(ext)", headers: []).body
        }
        let vod = try BundledMedia.data("\(flavour)/\(rendition)/s003.\(ext)")
        #expect(live(3) == vod)
        #expect(live(27).count == vod.count)
        let shift = try await probe(live(27)).first - probe(vod).first
        #expect(abs(shift - 48) < 0.000_1, "shift \(shift)")
        // The last segment of loop 0 followed by the first of loop 1 reads as one clean stream.
        let lastOfLoop = try BundledMedia.data("\(flavour)/\(rendition)/s011.\(ext)")
        let joined = try await probe(lastOfLoop + live(12))
        #expect(joined.warnings.isEmpty, "\(joined.warnings)")
        #expect(joined.last - joined.first < 4.1, "\(joined)")
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
                    let probe = try await withTemporaryFolder("demo") { folder in
                        let file = try folder.file("slice.ts", slice.body)
                        return try await ToolRun.run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v",
                                                                 "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", file])
                    }
                    #expect(probe.stdout.split(separator: "\n").first == "1", "\(target) \(line): \(probe.stdout)")
                    ranges += 1
                }
                #expect(ranges == 12)
            }
        }
    }
}
