import Foundation
import Testing
@testable import Players

/// Excerpts of `cvlc -vv` output (VLC 3.0.24, run as nobody) captured against the demo origin
/// through the proxy.
@Suite struct VLCLogTests {
    /// status-503 (segments 8-10 of the top variant answer 503): VLC starts on the top variant,
    /// gets a 503 for segment 8, carries on and reaches the end.
    static let topVariant503 = """
        [00007fc208001170] adaptive demux debug:  BaseAdaptationSet subs English
        [00007fc208001170] adaptive demux debug:   Representation /s/vf-status-503-25496+status-503/~media.r2/http/127.0.0.1:18490/vod/ts/subs/en/index.m3u8
        [00007fc208001170] adaptive demux debug:     (not loaded) Unknown
        [00007fc208001170] adaptive demux debug:  BaseAdaptationSet aud Français
        [00007fc208001170] adaptive demux debug:   Representation /s/vf-status-503-25496+status-503/~media.r1/http/127.0.0.1:18490/vod/ts/audio/fr/index.m3u8 [mp4a.40.2]
        [00007fc208001170] adaptive demux debug:     (not loaded) Unknown
        [00007fc208001170] adaptive demux debug:  BaseAdaptationSet aud English
        [00007fc208001170] adaptive demux debug:   Representation /s/vf-status-503-25496+status-503/~media.r0/http/127.0.0.1:18490/vod/ts/audio/en/index.m3u8 [mp4a.40.2]
        [00007fc208001170] adaptive demux debug:     (not loaded) Unknown
        [00007fc208001170] adaptive demux debug:  BaseAdaptationSet default_id#0
        [00007fc208001170] adaptive demux debug:   Representation /s/vf-status-503-25496+status-503/~media.v0/http/127.0.0.1:18490/vod/ts/v0/index.m3u8 [avc1.4d401f]
        [00007fc208001170] adaptive demux debug:     (not loaded) Unknown
        [00007fc208001170] adaptive demux debug:   Representation /s/vf-status-503-25496+status-503/~media.v1/http/127.0.0.1:18490/vod/ts/v1/index.m3u8 [avc1.4d401f]
        [00007fc208001170] adaptive demux debug:     (not loaded) Unknown
        [00007fc208001170] adaptive demux debug:   Representation /s/vf-status-503-25496+status-503/~media.v2/http/127.0.0.1:18490/vod/ts/v2/index.m3u8 [avc1.4d401f]
        [00007fc208001170] adaptive demux debug:     (not loaded) Unknown
        [00007fc210000c90] main input debug: selecting program id=0
        [00007fc208001170] adaptive demux debug: playlist Start/End 0/0 len 0rap pl/demux (0/0)
        [00007fc208001170] adaptive demux debug: cached.i_time (0) cur 0 rap start (pl 0/dmx 0) pos 0.000000
        [00007fc208001170] main demux debug: using demux module "adaptive"
        [00007fc208001170] adaptive demux debug: Retrieving http://127.0.0.1:18480/s/vf-status-503-25496+status-503/~media.v2/http/127.0.0.1:18490/vod/ts/v2/index.m3u8
        [00007fc208001170] adaptive demux debug: cached.i_time (1) cur 1400001 rap start (pl 50001/dmx 1450001) pos 0.000000
        [00007fc208001170] adaptive demux debug: cached.i_time (2840001) cur 4240001 rap start (pl 50001/dmx 1450001) pos 0.118333
        GET /s/vf-status-503-25496+status-503/~seg.v2.n8/http/127.0.0.1:18490/vod/ts/v2/s008.ts HTTP/1.1
        Host: 127.0.0.1:18480
        Accept: */*
        Accept-Language: en_US
        User-Agent: VLC/3.0.24 LibVLC/3.0.24
        Accept-Encoding: deflate, gzip
        Cache-Control: no-cache


        [00007fc208001170] http demux debug: incoming response:
        HTTP/1.1 503 Service Unavailable
        Retry-After: 2
        x-hlschaos-fault: status-503/top-msn8-10-503
        [00007fc208001170] adaptive demux debug: cached.i_time (10800001) cur 12200001 rap start (pl 50001/dmx 1450001) pos 0.450000
        [00007fc208001170] adaptive demux debug: cached.i_time (22841334) cur 24241334 rap start (pl 50001/dmx 1450001) pos 0.951722
        [000055f55816d840] main playlist debug: dead input
        [000055f55816d840] main playlist debug: changing item without a request (current 0/1)
        [000055f55816d840] main playlist debug: nothing to play
        [000055f55816d840] main playlist: end of playlist, exiting
        """

    /// master-404: VLC cannot open the input, says so, and exits 0.
    static let master404 = """
        GET /s/vf-master-404-8168+master-404/vod/ts/master.m3u8 HTTP/1.1
        [00007f534c001640] http stream debug: incoming response:
        HTTP/1.1 404 Not Found
        x-hlschaos-fault: master-404/m404
        GET /s/vf-master-404-8168+master-404/vod/ts/master.m3u8 HTTP/1.0
        [00007f534c001640] http stream error: error: HTTP/1.0 404 Not Found
        [00007f534c001640] main stream debug: no access modules matched
        [00007f5354000c90] main input error: Your input can't be opened
        [00007f5354000c90] main input error: VLC is unable to open the MRL 'http://127.0.0.1:18480/s/vf-master-404-8168+master-404/vod/ts/master.m3u8'. Check the log for details.
        [000055f23d4c3840] main playlist: end of playlist, exiting
        """

    /// Every segment answers 503: each stream fails to start; VLC prints its farewell (and then
    /// does not always exit).
    static let allSegments503 = """
        [00007f4efc001160] adaptive demux debug: cached.i_time (0) cur 0 rap start (pl 0/dmx 0) pos 0.000000
        GET /s/vf-all-503-12109+all-503/~seg.r2.n0/http/127.0.0.1:18490/vod/ts/subs/en/s000.vtt HTTP/1.1
        [00007f4efc001160] http demux debug: incoming response:
        HTTP/1.1 503 Service Unavailable
        [00007f4efc001160] adaptive demux error: Failed to create demuxer (nil) Unknown
        GET /s/vf-all-503-12109+all-503/~media.v0/http/127.0.0.1:18490/vod/ts/v0/index.m3u8 HTTP/1.1
        HTTP/1.1 200 OK
        GET /s/vf-all-503-12109+all-503/~seg.v0.n0/http/127.0.0.1:18490/vod/ts/v0/s000.ts HTTP/1.1
        [00007f4efc001160] http demux debug: incoming response:
        HTTP/1.1 503 Service Unavailable
        [00007f4efc001160] adaptive demux error: Failed to create demuxer (nil) Unknown
        [00005556c1261840] main playlist: end of playlist, exiting
        """

    @Test func aFailedSegmentIsAnErrorAndTheRunStillReachesTheEnd() {
        let result = VLCLog.parse(LogLine.split(Self.topVariant503))
        let facts = result.facts
        #expect(facts.errors.map(\.code) == [503])
        #expect(facts.errors.first?.message == "503 Service Unavailable for /s/vf-status-503-25496+status-503/~seg.v2.n8/http/127.0.0.1:18490/vod/ts/v2/s008.ts")
        #expect(facts.switches.map(\.level) == [2])
        #expect(facts.engine == "adaptive")
        #expect(result.finished)
        #expect(facts.fatal == nil)
        #expect(abs((facts.position ?? 0) - 22.79) < 0.01)
        #expect(facts.started)
    }

    @Test func aMasterThatCannotBeOpenedIsFatal() {
        let result = VLCLog.parse(LogLine.split(Self.master404))
        #expect(result.facts.errors.map(\.code) == [404])
        #expect(result.facts.fatal == "VLC could not open the input (last error: 404 Not Found for /s/vf-master-404-8168+master-404/vod/ts/master.m3u8)")
        #expect(result.finished)
        #expect(!result.facts.started)
    }

    @Test func everySegmentFailingPlaysNothing() {
        let result = VLCLog.parse(LogLine.split(Self.allSegments503))
        #expect(result.facts.errors.map(\.code) == [503, 503])
        #expect(result.facts.errors.allSatisfy { $0.message.contains("~seg.") })
        #expect(result.finished)
        #expect(!result.facts.started)
        #expect(result.facts.fatal == nil)
    }

    @Test func representationsMatchTheURLsVLCFetches() {
        #expect(VLCLog.matches("http://h:1/vod/ts/v0/index.m3u8", "v0/index.m3u8"))
        #expect(!VLCLog.matches("http://h:1/vod/ts/xv0/index.m3u8", "v0/index.m3u8"))
        #expect(VLCLog.matches("http://h:1/s/a/~media.v2/x/index.m3u8", "/s/a/~media.v2/x/index.m3u8"))
        #expect(!VLCLog.matches("http://h:1/s/a/~seg.v2.n1/x/s001.ts", "/s/a/~media.v2/x/index.m3u8"))
    }

    @Test func asRootVLCRunsAsAnotherUser() throws {
        let account = try #require(RunAsUser.lookup("nobody"))
        let wrapped = account.wrap("/usr/bin/cvlc", ["-vv", "u"])
        #expect(wrapped.executable == "setpriv")
        #expect(wrapped.arguments == ["--reuid=\(account.uid)", "--regid=\(account.gid)", "--clear-groups", "/usr/bin/cvlc", "-vv", "u"])
        #expect(VLCDriver().arguments(url: "u", live: false).contains("--rate=4.0"))
        #expect(!VLCDriver().arguments(url: "u", live: true).contains { $0.hasPrefix("--rate") })
        #expect(RunAsUser.lookup("no-such-user-hlschaos") == nil)
    }
}
