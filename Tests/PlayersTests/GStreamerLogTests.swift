import Foundation
import Testing
@testable import Players

/// Excerpts of GStreamer 1.22 output (`gst-launch-1.0 -v` on stdout, the driver's `GST_DEBUG`
/// levels on stderr) captured against the demo origin through the proxy.
@Suite struct GStreamerLogTests {
    /// playbin3 (hlsdemux2), status-503 (segments 8-10 of the top variant answer 503): it starts on
    /// variant 0, switches to 2, plays to 15.4 s and retries segment 8 forever without a message.
    static let hlsdemux2Stdout = """
        Setting pipeline to PAUSED ...
        Pipeline is PREROLLING ...
        /GstPlayBin3:playbin3-0/GstURIDecodeBin3:uridecodebin3/GstURISourceBin:urisourcebin0/GstHLSDemux2:hlsdemux2-0/GstParseBin:parsebin0/GstTSDemux:tsdemux1: ignore-pcr = true
        buffering... 1%  
        /GstPlayBin3:playbin3-0/GstURIDecodeBin3:uridecodebin3/GstURISourceBin:urisourcebin0/GstHLSDemux2:hlsdemux2-0: current-bandwidth = 139177861
        Setting pipeline to PLAYING ...
        /GstPlayBin3:playbin3-0/GstPlaySink:playsink/GstBin:vbin/GstFakeSink:hlschaos_video: last-message = chain   ******* (hlschaos_video:sink) (146016 bytes, dts: none, pts: 0:01:02.080000000, duration: 0:00:00.040000000, offset: -1, offset_end: -1, flags: 00000040 discont , meta: none) 0x7ff3f800ed80
        /GstPlayBin3:playbin3-0/GstPlaySink:playsink/GstBin:vbin/GstFakeSink:hlschaos_video: last-message = chain   ******* (hlschaos_video:sink) (146016 bytes, dts: none, pts: 0:01:02.120000000, duration: 0:00:00.040000000, offset: -1, offset_end: -1, flags: 00000000 , meta: none) 0x7ff3f8238000
        Missing element: Timed Text decoder
        WARNING: from element /GstPlayBin3:playbin3-0/GstPlaySink:playsink/GstBin:tbin/GstSubtitleOverlay:suboverlay: Your GStreamer installation is missing a plug-in.
        buffering... 0%  
        /GstPlayBin3:playbin3-0/GstPlaySink:playsink/GstBin:vbin/GstFakeSink:hlschaos_video: last-message = chain   ******* (hlschaos_video:sink) (777600 bytes, dts: none, pts: 0:01:17.440000000, duration: 0:00:00.040000000, offset: -1, offset_end: -1, flags: 00000000 , meta: none) 0x7ff404162480
        """

    static let hlsdemux2Stderr = """
        0:00:00.099792677 15497 0x55d0a27b9060 INFO                   hlsng m3u8.c:2076:hls_master_playlist_new_from_data: stream variant-201907bps-cdb66423b057e08385f532ee9aceac2ae11d8252 @ 201907: http://127.0.0.1:18480/s/g3-status-503+status-503/~media.v0/http/127.0.0.1:18490/vod/ts/v0/index.m3u8
        0:00:00.099802636 15497 0x55d0a27b9060 INFO                   hlsng m3u8.c:2076:hls_master_playlist_new_from_data: stream variant-335638bps-7ba17fed7d4378b65fd2dcdf64c3818f76acc24f @ 335638: http://127.0.0.1:18480/s/g3-status-503+status-503/~media.v1/http/127.0.0.1:18490/vod/ts/v1/index.m3u8
        0:00:00.099811082 15497 0x55d0a27b9060 INFO                   hlsng m3u8.c:2076:hls_master_playlist_new_from_data: stream variant-592320bps-5c0e1ecb3de52a8ffa1bf42c973258ddf702dddb @ 592320: http://127.0.0.1:18480/s/g3-status-503+status-503/~media.v2/http/127.0.0.1:18490/vod/ts/v2/index.m3u8
        0:00:00.099838914 15497 0x55d0a27b9060 INFO               hlsdemux2 gsthlsdemux.c:934:gst_hls_demux_process_manifest:<hlsdemux2-0> Manifest processed, initial variant selected : `variant-201907bps-cdb66423b057e08385f532ee9aceac2ae11d8252`
        0:00:00.158276264 15497 0x7ff41c04d5e0 INFO               hlsdemux2 gsthlsdemux.c:2704:gst_hls_demux_change_playlist:<hlsdemux2-0> Client was on 201907bps, max allowed is 111342288bps, switching to bitrate 592320bps
        """

    /// playbin3, master-404: souphttpsrc posts the error, the pipeline never prerolls, exit 1.
    static let master404Stderr = """
        0:00:00.112291072 15490 0x564117685f60 WARN             souphttpsrc gstsouphttpsrc.c:1683:gst_soup_http_src_parse_status:<souphttpsrc0> error: Not Found
        0:00:00.112341016 15490 0x564117685f60 WARN             souphttpsrc gstsouphttpsrc.c:1683:gst_soup_http_src_parse_status:<souphttpsrc0> error: Not Found (404), URL: http://127.0.0.1:18480/s/g3-master-404+master-404/vod/ts/master.m3u8, Redirect to: (NULL)
        ERROR: from element /GstPlayBin3:playbin3-0/GstURIDecodeBin3:uridecodebin3/GstURISourceBin:urisourcebin0/GstSoupHTTPSrc:souphttpsrc0: Not Found
        Additional debug info:
        ../ext/soup/gstsouphttpsrc.c(1683): gst_soup_http_src_parse_status (): /GstPlayBin3:playbin3-0/GstURIDecodeBin3:uridecodebin3/GstURISourceBin:urisourcebin0/GstSoupHTTPSrc:souphttpsrc0:
        Not Found (404), URL: http://127.0.0.1:18480/s/g3-master-404+master-404/vod/ts/master.m3u8, Redirect to: (NULL)
        ERROR: pipeline doesn't want to preroll.
        ERROR: from element /GstPlayBin3:playbin3-0/GstURIDecodeBin3:uridecodebin3/GstURISourceBin:urisourcebin0/GstSoupHTTPSrc:souphttpsrc0: Internal data stream error.
        Additional debug info:
        ../libs/gst/base/gstbasesrc.c(3132): gst_base_src_loop (): /GstPlayBin3:playbin3-0/GstURIDecodeBin3:uridecodebin3/GstURISourceBin:urisourcebin0/GstSoupHTTPSrc:souphttpsrc0:
        streaming stopped, reason error (-5)
        ERROR: pipeline doesn't want to preroll.
        """

    /// playbin (legacy hlsdemux), status-503: souphttpsrc logs every 503; it moves on and reaches EOS.
    static let legacy503 = """
        0:00:00.275028766 15857 0x560aa2045f60 INFO                     hls m3u8.c:1614:gst_hls_master_playlist_new_from_data: stream /s/gl-status-503-20837+status-503/~media.v0/http/127.0.0.1:18490/vod/ts/v0/index.m3u8 @ 201907: http://127.0.0.1:18480/s/gl-status-503-20837+status-503/~media.v0/http/127.0.0.1:18490/vod/ts/v0/index.m3u8
        0:00:00.275035098 15857 0x560aa2045f60 INFO                     hls m3u8.c:1614:gst_hls_master_playlist_new_from_data: stream /s/gl-status-503-20837+status-503/~media.v1/http/127.0.0.1:18490/vod/ts/v1/index.m3u8 @ 335638: http://127.0.0.1:18480/s/gl-status-503-20837+status-503/~media.v1/http/127.0.0.1:18490/vod/ts/v1/index.m3u8
        0:00:00.275040748 15857 0x560aa2045f60 INFO                     hls m3u8.c:1614:gst_hls_master_playlist_new_from_data: stream /s/gl-status-503-20837+status-503/~media.v2/http/127.0.0.1:18490/vod/ts/v2/index.m3u8 @ 592320: http://127.0.0.1:18480/s/gl-status-503-20837+status-503/~media.v2/http/127.0.0.1:18490/vod/ts/v2/index.m3u8
        0:00:00.275069903 15857 0x560aa2045f60 INFO                hlsdemux gsthlsdemux.c:802:gst_hls_demux_process_manifest:<hlsdemux0> selected /s/gl-status-503-20837+status-503/~media.v0/http/127.0.0.1:18490/vod/ts/v0/index.m3u8
        0:00:00.342911805 15857 0x7f182400b120 INFO                hlsdemux gsthlsdemux.c:1803:gst_hls_demux_change_playlist:<hlsdemux0> Client was on 201907bps, max allowed is 11475333bps, switching to bitrate 592320bps
        0:00:00.946897117 15857 0x560aa2045ea0 WARN             souphttpsrc gstsouphttpsrc.c:1690:gst_soup_http_src_parse_status:<souphttpsrc4> error: Service Unavailable
        0:00:00.946911984 15857 0x560aa2045ea0 WARN             souphttpsrc gstsouphttpsrc.c:1690:gst_soup_http_src_parse_status:<souphttpsrc4> error: Service Unavailable (503), URL: http://127.0.0.1:18480/s/gl-status-503-20837+status-503/~seg.v2.n8/http/127.0.0.1:18490/vod/ts/v2/s008.ts, Redirect to: (NULL)
        0:00:00.949850827 15857 0x7f181c00e580 WARN           adaptivedemux gstadaptivedemux.c:3527:gst_adaptive_demux_stream_download_fragment:<hlsdemux0:src_3> Got custom error, status 503, dc 0
        """

    static let legacyStdout = """
        /GstPlayBin:playbin0/GstURIDecodeBin:uridecodebin0/GstDecodeBin:decodebin0/GstHLSDemux:hlsdemux0: connection-speed = 0
        Got EOS from element "playbin0".
        Execution ended after 0:00:02.344328281
        """

    @Test func hlsdemux2StuckOnASegment() {
        let result = GStreamerLog.parse(stdout: LogLine.split(Self.hlsdemux2Stdout), stderr: LogLine.split(Self.hlsdemux2Stderr))
        let facts = result.facts
        #expect(facts.engine == "hlsdemux2")
        #expect(facts.switches.map(\.level) == [0, 2])
        #expect(facts.progress.map { ($0.position * 100).rounded() / 100 } == [0.04, 0.08, 15.4])
        #expect(abs((facts.position ?? 0) - 15.4) < 0.001)
        #expect(!facts.ended)
        #expect(facts.fatal == nil)
        #expect(result.playing)
        #expect(result.buffering == 0)
        // The only message is the subtitle plug-in warning; hlsdemux2 says nothing about the 503s.
        #expect(facts.errors.map(\.kind) == ["suboverlay"])
        #expect(facts.errors.allSatisfy { !$0.fatal && $0.code == nil })
    }

    @Test func aMasterThatCannotBeOpenedIsFatalWithItsStatus() {
        let result = GStreamerLog.parse(stdout: [], stderr: LogLine.split(Self.master404Stderr))
        let facts = result.facts
        #expect(facts.fatal == "souphttpsrc0: Not Found (404), URL: http://127.0.0.1:18480/s/g3-master-404+master-404/vod/ts/master.m3u8")
        #expect(facts.errors.filter(\.fatal).map(\.code) == [404, nil])
        #expect(facts.errors.filter { !$0.fatal }.map(\.code) == [404])
        #expect(!result.playing)
        #expect(!facts.started)
    }

    @Test func legacyHlsdemuxLogsEveryFailedFragmentAndReachesTheEnd() {
        let result = GStreamerLog.parse(stdout: LogLine.split(Self.legacyStdout), stderr: LogLine.split(Self.legacy503))
        let facts = result.facts
        #expect(facts.engine == "hlsdemux")
        #expect(facts.ended)
        #expect(facts.switches.map(\.level) == [0, 2])
        #expect(facts.errors.map(\.code) == [503])
        #expect(facts.errors.first?.message == "Service Unavailable (503), URL: http://127.0.0.1:18480/s/gl-status-503-20837+status-503/~seg.v2.n8/http/127.0.0.1:18490/vod/ts/v2/s008.ts")
    }

    @Test func legacyErrorMessagesLoseTheirRepeatedDebugString() {
        // playbin (legacy hlsdemux) on a media playlist whose segments all answer 503.
        let lines = LogLine.split("""
            ERROR: from element /GstPlayBin:playbin0/GstURIDecodeBin:uridecodebin0/GstDecodeBin:decodebin0/GstHLSDemux:hlsdemux0: Service Unavailable: ../ext/soup/gstsouphttpsrc.c(1690): gst_soup_http_src_parse_status (): /GstPlayBin:playbin0/GstURIDecodeBin:uridecodebin0/GstDecodeBin:decodebin0/GstHLSDemux:hlsdemux0/GstBin:srcbin-src_0/GstSoupHTTPSrc:souphttpsrc1:
            Service Unavailable (503), URL: http://127.0.0.1:18480/s/x10154+all-503/~seg.n0/http/127.0.0.1:18490/vod/ts/v0/s000.ts, Redirect to: (NULL)

            Additional debug info:
            Error on stream '':src_0
            ERROR: pipeline doesn't want to preroll.
            """)
        let facts = GStreamerLog.parse(stdout: [], stderr: lines).facts
        #expect(facts.fatal == "hlsdemux0: Service Unavailable (503), URL: http://127.0.0.1:18480/s/x10154+all-503/~seg.n0/http/127.0.0.1:18490/vod/ts/v0/s000.ts")
        #expect(facts.errors.map(\.code) == [503])
    }

    @Test func bufferingIsTheLastValueOnTheLine() {
        #expect(GStreamerLog.lastBuffering("buffering... 1%  buffering... 2%  buffering... 42%  ") == 42)
        #expect(GStreamerLog.lastBuffering("buffering... 100%  Setting pipeline to PLAYING ...") == 100)
        #expect(GStreamerLog.lastBuffering("Redistribute latency...") == nil)
    }

    @Test func eachPipelineRanksTheOtherDemuxerOut() {
        let modern = GStreamerDriver(.playbin3)
        #expect(modern.name == "gstreamer")
        #expect(modern.environment["GST_PLUGIN_FEATURE_RANK"] == "hlsdemux:NONE")
        #expect(modern.arguments(url: "u").prefix(3) == ["-v", "playbin3", "uri=u"])
        let legacy = GStreamerDriver(.legacy)
        #expect(legacy.name == "gstreamer-legacy")
        #expect(legacy.environment["GST_PLUGIN_FEATURE_RANK"] == "hlsdemux2:NONE")
        #expect(legacy.arguments(url: "u").prefix(3) == ["-v", "playbin", "uri=u"])
    }
}
