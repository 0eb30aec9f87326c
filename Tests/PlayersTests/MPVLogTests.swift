import Foundation
import Testing
@testable import Players

/// Excerpts of mpv 0.35.1 output (`--msg-level=all=v` on stdout, the driver's status line on
/// stderr) captured against the demo origin through the proxy.
@Suite struct MPVLogTests {
    /// status-503: mpv plays the top variant (track 3), lavf skips segments 8-10, mpv reaches the end.
    static let topVariant503 = """
        [lavf] Found 'hls' at score=100 size=2001.
             Video --vid=1 (h264 416x234 25.000fps) (225 kbps)
             Video --vid=2 (h264 640x360 25.000fps) (375 kbps)
         (+) Video --vid=3 (h264 960x540 25.000fps) (653 kbps)
         (+) Audio --aid=1 --alang=en (*) (aac 1ch 48000Hz) (653 kbps)
        [ffmpeg] http: Opening 'http://127.0.0.1:18480/s/mf-status-503-14698+status-503/~seg.v2.n8/http/127.0.0.1:18490/vod/ts/v2/s008.ts' for reading
        [ffmpeg] http: HTTP error 503 Service Unavailable
        [ffmpeg/demuxer] hls: keepalive request failed for 'http://127.0.0.1:18480/s/mf-status-503-14698+status-503/~seg.v2.n8/http/127.0.0.1:18490/vod/ts/v2/s008.ts' with error: 'Server returned 5XX Server Error reply' when opening url, retrying with new connection
        [ffmpeg/demuxer] hls: Opening 'http://127.0.0.1:18480/s/mf-status-503-14698+status-503/~seg.v2.n8/http/127.0.0.1:18490/vod/ts/v2/s008.ts' for reading
        [ffmpeg] http: HTTP error 503 Service Unavailable
        [ffmpeg/demuxer] hls: Failed to open segment 8 of playlist 4
        [ffmpeg] http: HTTP error 503 Service Unavailable
        [ffmpeg/demuxer] hls: Failed to open segment 9 of playlist 4
        [ffmpeg/demuxer] hls: Opening 'http://127.0.0.1:18480/s/mf-status-503-14698+status-503/~seg.v2.n10/http/127.0.0.1:18490/vod/ts/v2/s010.ts' for reading
        [ffmpeg] http: HTTP error 503 Service Unavailable
        [ffmpeg/demuxer] hls: Failed to open segment 10 of playlist 4
        [cplayer] video EOF reached
        [cplayer] EOF code: 1  
        [cplayer] finished playback, success (reason 0)

        Exiting... (End of file)
        """

    static let master404 = """
        [ffmpeg] Opening http://127.0.0.1:18480/s/mf-master-404-32212+master-404/vod/ts/master.m3u8
        [cplayer] Set property: shared-script-properties -> 1
        [ffmpeg] http: HTTP error 404 Not Found
        Failed to open http://127.0.0.1:18480/s/mf-master-404-32212+master-404/vod/ts/master.m3u8.
        [cplayer] Opening failed or was aborted: http://127.0.0.1:18480/s/mf-master-404-32212+master-404/vod/ts/master.m3u8
        [cplayer] finished playback, loading failed (reason 4)

        Exiting... (Errors when loading file)
        """

    /// Every segment answers 503: lavf gives up, mpv then reads the master as a plain playlist and
    /// refuses its entries.
    static let allSegments503 = """
        [ffmpeg/demuxer] hls: Opening 'http://127.0.0.1:18480/s/mf-all-503-2717+all-503/~seg.r0.n11/http/127.0.0.1:18490/vod/ts/audio/en/s011.ts' for reading
        [ffmpeg] http: HTTP error 503 Service Unavailable
        [ffmpeg/demuxer] hls: Failed to open segment 11 of playlist 0
        [ffmpeg/demuxer] hls: Error when loading first segment 'http://127.0.0.1:18480/s/mf-all-503-2717+all-503/~seg.r0.n0/http/127.0.0.1:18490/vod/ts/audio/en/s000.ts'
        [lavf] avformat_open_input() failed
        [cplayer] finished playback, success (reason 5)

        Playing: /s/mf-all-503-2717+all-503/~media.v0/http/127.0.0.1:18490/vod/ts/v0/index.m3u8
        Refusing to load potentially unsafe URL from a playlist.
        Use the --load-unsafe-playlists option to load it anyway.

        [cplayer] Opening failed or was aborted: /s/mf-all-503-2717+all-503/~media.v0/http/127.0.0.1:18490/vod/ts/v0/index.m3u8
        [cplayer] finished playback, loading failed (reason 4)
        [cplayer] finished playback, loading failed (reason 4)

        Exiting... (Some errors happened)
        """

    /// The start of the status output, as written (`\r`, erase-line, the position, `\r\n`).
    static let statusOutput = "\r\u{1B}[Khlschaos-position=0.080000\r\n\r\u{1B}[Khlschaos-position=0.120000\r\r\u{1B}[Khlschaos-position=0.160000\r\n"

    @Test func aFailedSegmentIsAnErrorAndTheRunStillReachesTheEnd() {
        let facts = MPVLog.parse(LogLine.split(Self.topVariant503))
        #expect(facts.errors.filter { $0.code == 503 }.count == 4)
        #expect(facts.errors.filter { $0.kind == "segmentFailed" }.map(\.message) == [
            "hls: Failed to open segment 8 of playlist 4", "hls: Failed to open segment 9 of playlist 4",
            "hls: Failed to open segment 10 of playlist 4",
        ])
        #expect(facts.switches.map(\.level) == [2])
        #expect(facts.engine == "lavf hls")
        #expect(facts.ended)
        #expect(facts.fatal == nil)
    }

    @Test func aMasterThatCannotBeOpenedIsFatal() {
        let facts = MPVLog.parse(LogLine.split(Self.master404))
        #expect(facts.errors.map(\.code) == [404, 404])
        #expect(facts.fatal == "mpv: Errors when loading file (last error: Failed to open http://127.0.0.1:18480/s/mf-master-404-32212+master-404/vod/ts/master.m3u8. (http: HTTP error 404 Not Found))")
        #expect(!facts.ended)
    }

    @Test func everySegmentFailingIsFatal() {
        let facts = MPVLog.parse(LogLine.split(Self.allSegments503))
        #expect(facts.errors.contains { $0.code == 503 })
        #expect(facts.fatal?.hasPrefix("mpv: Some errors happened") == true)
        #expect(!facts.started)
    }

    @Test func theStatusLineGivesThePosition() {
        let facts = MPVLog.parse(LogLine.split(Self.statusOutput))
        #expect(facts.progress.map(\.position) == [0.08, 0.12, 0.16])
    }

    @Test func beingStoppedIsNotAFailure() {
        let facts = MPVLog.parse(LogLine.split("Exiting... (Quit)"))
        #expect(facts.fatal == nil && !facts.ended)
    }
}
