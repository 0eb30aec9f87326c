import Foundation
@testable import Proxy
import Testing
import TestSupport

/// An LL-HLS blocking reload (`_HLS_msn`) is held by the origin until the part it asks for exists:
/// the proxy waits as long as the spec lets the origin hold it (three target durations) before its
/// timeouts count, and only for such a request.
@Suite struct BlockingReloadTests {
    @Test func aBlockingReloadMayBeHeldForThreeTargetDurations() async throws {
        try await TestOrigin.with { origin in
            let playlist = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES\n#EXTINF:1,\ns0.ts\n"
            origin.route("/ll.m3u8", .bytes(headers: [("Content-Type", "application/vnd.apple.mpegurl")], body: Array(playlist.utf8)))
            origin.route("/held.m3u8", .delayedHeaders(.milliseconds(2500), then: .bytes(
                headers: [("Content-Type", "application/vnd.apple.mpegurl")], body: Array(playlist.utf8))))
            try await ProxyHarness.with(upstreamURL: origin.baseURL, configure: {
                $0.upstream.firstByteTimeout = .seconds(1)
                $0.playlistTimeout = 1
            }) { proxy in
                #expect(await proxy.status("/ll.m3u8") == 200)  // the session learns the target duration: 1 s
                let blocking = try await proxy.get("/held.m3u8?_HLS_msn=1&_HLS_part=0")
                #expect(blocking.status == 200, "held 2.5 s, within 3 × 1 s and the 1 s timeout: \(blocking.text)")
                #expect(blocking.secondsToHead >= 2.4)
                let plain = try await proxy.get("/held.m3u8")
                #expect(plain.status == 504, "an ordinary reload gets the ordinary timeout")
                #expect(plain.secondsToHead < 2.4)
                let mentionedOnly = try await proxy.get("/held.m3u8?x_HLS_msn=1")
                #expect(mentionedOnly.status == 504, "only an _HLS_msn parameter asks to block")
            }
        }
    }

    @Test func onlyAnHLSMsnParameterAsksToBlock() {
        #expect(BlockingReload.asksToBlock("/a.m3u8?_HLS_msn=4"))
        #expect(BlockingReload.asksToBlock("/a.m3u8?token=1&_HLS_msn=4&_HLS_part=2"))
        #expect(!BlockingReload.asksToBlock("/a.m3u8?_HLS_skip=YES"))
        #expect(!BlockingReload.asksToBlock("/_HLS_msn=4/a.m3u8"))
        #expect(BlockingReload.hold(targetDuration: 4) == .seconds(12))
        #expect(BlockingReload.hold(targetDuration: nil) == .seconds(30))
    }
}
