import Foundation
import Testing
import TestSupport

/// A playlist reloaded again and again is compared with the origin's previous answer where curl
/// delivers it (`UpstreamRequest.expectedBody`) and served from the rewrite cache while it is the
/// same. Whatever the change (one line, a segment more, a segment less, back to an old version),
/// the client must get what a proxy that never saw the earlier versions writes.
@Suite struct ChangingPlaylistTests {
    static func playlist(first: Int, count: Int, renamed: Int? = nil) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:4", "#EXT-X-MEDIA-SEQUENCE:\(first)"]
        for msn in first..<(first + count) {
            lines.append("#EXTINF:4.000,")
            lines.append(msn == renamed ? "renamed-\(msn).ts?token=abc123" : "segment-\(msn).ts?token=abc123")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test func everyVersionIsServedAsAFreshProxyWritesIt() async throws {
        try await TestOrigin.with { origin in
            try await ProxyHarness.with(upstreamURL: origin.baseURL) { proxy in
                let versions = [
                    Self.playlist(first: 0, count: 1200),
                    Self.playlist(first: 0, count: 1200),  // unchanged: a cache hit
                    Self.playlist(first: 0, count: 1200, renamed: 1100),  // one line near the end
                    Self.playlist(first: 0, count: 1200, renamed: 0),  // the first segment's line
                    Self.playlist(first: 1, count: 1200),  // slid by one
                    Self.playlist(first: 1, count: 1199),  // one segment less: a prefix of the last
                    Self.playlist(first: 1, count: 1200),  // the last one again, longer than the one before
                    Self.playlist(first: 0, count: 1200),  // back to the first version
                ]
                for (index, version) in versions.enumerated() {
                    origin.route("/live/index.m3u8", .bytes(headers: [("Content-Type", "application/vnd.apple.mpegurl")], body: Array(version.utf8)))
                    let served = try await proxy.get("/live/index.m3u8")
                    let expected = try await ProxyHarness.with(upstreamURL: origin.baseURL) { fresh in try await fresh.get("/live/index.m3u8") }
                    #expect(served.status == 200)
                    #expect(served.text == expected.text, "version \(index)")
                    #expect(served.text.components(separatedBy: "#EXTINF").count - 1 == (version.components(separatedBy: "#EXTINF").count - 1))
                }
            }
        }
    }
}
