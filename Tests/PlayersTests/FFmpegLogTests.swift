import Foundation
import Testing
@testable import Players

/// Excerpts of ffmpeg 5.1 output (`-v repeat+level+info`, `-progress pipe:1`) captured against the
/// demo origin through the proxy (`/s/<id>+<preset>/vod/ts/master.m3u8`).
@Suite struct FFmpegLogTests {
    /// A master whose every segment answers 503: ffmpeg gives up on the first segment and exits 1.
    static let allSegments503 = """
        [hls @ 0x55f937108200] [warning] Can't support the subtitle(uri: /s/ff2-all-503-13039+all-503/~media.r2/http/127.0.0.1:18490/vod/ts/subs/en/index.m3u8)
        [hls @ 0x55f937108200] [info] Opening 'http://127.0.0.1:18480/s/ff2-all-503-13039+all-503/~seg.r0.n0/http/127.0.0.1:18490/vod/ts/audio/en/s000.ts' for reading
        [http @ 0x55f937148340] [warning] HTTP error 503 Service Unavailable
        [hls @ 0x55f937108200] [warning] Failed to open segment 0 of playlist 0
        [hls @ 0x55f937108200] [info] Opening 'http://127.0.0.1:18480/s/ff2-all-503-13039+all-503/~seg.r0.n1/http/127.0.0.1:18490/vod/ts/audio/en/s001.ts' for reading
        [http @ 0x55f937148700] [warning] HTTP error 503 Service Unavailable
        [hls @ 0x55f937108200] [warning] Failed to open segment 1 of playlist 0
        [hls @ 0x55f937108200] [error] Error when loading first segment 'http://127.0.0.1:18480/s/ff2-all-503-13039+all-503/~seg.r0.n0/http/127.0.0.1:18490/vod/ts/audio/en/s000.ts'
        [error] http://127.0.0.1:18480/s/ff2-all-503-13039+all-503/vod/ts/master.m3u8: Invalid data found when processing input
        """

    static let master404 = """
        [http @ 0x555900584a80] [warning] HTTP error 404 Not Found
        [error] http://127.0.0.1:18480/s/ff2-master-404-17197+master-404/vod/ts/master.m3u8: Server returned 404 Not Found
        """

    /// status-503 on the top variant (`-map 0:p:2:v:0`): segments 8-10 fail, ffmpeg skips them and exits 0.
    static let topVariant503 = """
        [info] Input #0, hls, from 'http://127.0.0.1:18480/s/ff-7392+status-503/vod/ts/master.m3u8':
        [info]   Duration: 00:00:24.00, start: 1.400000, bitrate: 0 kb/s
        [info] Stream mapping:
        [info]   Stream #0:4 -> #0:0 (h264 (native) -> wrapped_avframe (native))
        [info]   Stream #0:0 -> #0:1 (aac (native) -> pcm_s16le (native))
        [http @ 0x558bcc981080] [warning] HTTP error 503 Service Unavailable
        [hls @ 0x55d0a7236200] [warning] Failed to open segment 8 of playlist 4
        [http @ 0x558bcc981080] [warning] HTTP error 503 Service Unavailable
        [hls @ 0x55d0a7236200] [warning] Failed to open segment 9 of playlist 4
        [hls @ 0x55d0a7236200] [info] No longer receiving playlist 3 ('http://127.0.0.1:18480/s/ff-7392+status-503/~media.v1/http/127.0.0.1:18490/vod/ts/v1/index.m3u8')
        [info] frame=  450 fps=0.0 q=-0.0 Lsize=N/A time=00:00:24.08 bitrate=N/A speed= 114x
        """

    static let progressBlocks = """
        frame=146
        fps=0.00
        out_time_us=5840000
        out_time=00:00:05.840000
        progress=continue
        frame=450
        fps=0.00
        stream_0_0_q=-0.0
        out_time_us=24080000
        out_time_ms=24080000
        out_time=00:00:24.080000
        speed= 114x
        progress=end
        """

    @Test func everySegmentFailingGivesHTTPErrorsAndTheFinalErrorLine() {
        let result = FFmpegLog.parse(stderr: LogLine.split(Self.allSegments503), progress: [])
        let http = result.facts.errors.filter { $0.code == 503 }
        #expect(http.count == 2)
        #expect(http.allSatisfy { $0.kind == "HTTP error 503" && !$0.fatal })
        #expect(result.facts.errors.filter { $0.kind == "segmentFailed" }.map(\.message) == [
            "Failed to open segment 0 of playlist 0", "Failed to open segment 1 of playlist 0",
        ])
        #expect(result.facts.lastError == "http://127.0.0.1:18480/s/ff2-all-503-13039+all-503/vod/ts/master.m3u8: Invalid data found when processing input")
        #expect(result.frames == nil)
        #expect(!result.facts.started)
        #expect(!result.facts.ended)
    }

    @Test func aMasterThatCannotBeOpenedGivesItsStatus() {
        let result = FFmpegLog.parse(stderr: LogLine.split(Self.master404), progress: [])
        #expect(result.facts.errors.map(\.code) == [404, 404])
        #expect(result.facts.lastError?.hasSuffix("Server returned 404 Not Found") == true)
    }

    @Test func progressGivesPositionFramesAndTheEnd() {
        let result = FFmpegLog.parse(stderr: LogLine.split(Self.topVariant503), progress: LogLine.split(Self.progressBlocks))
        #expect(result.frames == 450)
        #expect(result.facts.position == 24.08)
        #expect(result.facts.progress.map(\.position) == [5.84, 24.08])
        #expect(result.facts.ended)
        #expect(result.videoOutput)
        #expect(result.facts.engine == "lavf hls")
        #expect(result.facts.errors.filter { $0.code == 503 }.count == 2)
        #expect(result.facts.switches.isEmpty)
    }

    @Test func linesWithoutALevelAreReadToo() {
        // The preset playback catalog's captures were made at plain `-v info`.
        let lines = LogLine.split("""
            [http @ 0x55745caa5540] HTTP error 503 Service Unavailable
            [hls @ 0x55745ca651c0] Failed to open segment 0 of playlist 0
            """)
        let result = FFmpegLog.parse(stderr: lines, progress: [])
        #expect(result.facts.errors.map(\.kind) == ["HTTP error 503", "segmentFailed"])
    }

    @Test func theCommandLine() {
        let driver = FFmpegDriver(readTimeout: 5)
        #expect(driver.arguments(url: "http://h/m.m3u8", pickyOption: true) == [
            "-hide_banner", "-nostdin", "-nostats", "-v", "repeat+level+info", "-extension_picky", "0",
            "-rw_timeout", "5000000", "-i", "http://h/m.m3u8",
            "-f", "null", "-", "-progress", "pipe:1",
        ])
        let top = FFmpegDriver(program: 2).arguments(url: "u", pickyOption: false)
        #expect(!top.contains("-extension_picky"))
        #expect(top.contains("0:p:2:v:0?"))
        #expect(!top.contains("-t"))
        // `duration` limits the input: every mapped stream gets the whole span.
        let limited = FFmpegDriver(duration: 30).arguments(url: "u", pickyOption: false)
        #expect(limited.joined(separator: " ").contains("-rw_timeout 10000000 -t 30 -i u"))
        #expect(FFmpegDriver(duration: 2.5).arguments(url: "u", pickyOption: false).contains("2.5"))
    }

    /// Through a forward proxy: the proxy for every open (lavf's hls passes http_proxy on), and the
    /// root the first open verifies against, all before `-i`.
    @Test func theCommandLineThroughAForwardProxy() {
        let proxy = PlayerProxy(url: "http://127.0.0.1:8080", caFile: "/data/ca/root.pem")
        let arguments = FFmpegDriver().arguments(url: "https://cdn.test/m.m3u8", pickyOption: false, proxy: proxy).joined(separator: " ")
        #expect(arguments.contains("-http_proxy http://127.0.0.1:8080 -ca_file /data/ca/root.pem -tls_verify 1 -i https://cdn.test/m.m3u8"))
        #expect(!FFmpegDriver().arguments(url: "u", pickyOption: false).contains("-http_proxy"))
        // --via https: the root to trust, no proxy.
        let direct = FFmpegDriver().arguments(url: "https://localhost:8443/s/a/m.m3u8", pickyOption: false,
                                              proxy: PlayerProxy(url: nil, caFile: "/data/ca/root.pem")).joined(separator: " ")
        #expect(direct.contains("-ca_file /data/ca/root.pem -tls_verify 1 -i https://localhost:8443/s/a/m.m3u8"))
        #expect(!direct.contains("-http_proxy"))
    }

    /// Tags and the indentation after them go: what is left is ffmpeg's message.
    @Test func aLineTakenApart() {
        #expect(FFmpegLog.split("[hls @ 0x55d1] [warning] Failed to open segment 8 of playlist 4") == ("warning", "Failed to open segment 8 of playlist 4"))
        #expect(FFmpegLog.split("[info]   Program 2 ") == ("info", "Program 2 "))
        #expect(FFmpegLog.split("Press [q] to stop") == (nil, "Press [q] to stop"))
    }
}
