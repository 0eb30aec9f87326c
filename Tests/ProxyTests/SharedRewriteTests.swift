import Foundation
import Testing
import TestSupport

/// Sessions share the rewrite of a playlist: the first one to fetch a version parses and rewrites it,
/// the others get it with their own prefix spliced in. What each session gets must be what its own
/// rewrite would have written.
@Suite struct SharedRewriteTests {
    @Test func everySessionGetsItsOwnPrefixInEveryURI() async throws {
        try await TestOrigin.with { origin in
            let playlist = """
                #EXTM3U
                #EXT-X-VERSION:9
                #EXT-X-TARGETDURATION:4
                #EXT-X-MEDIA-SEQUENCE:40
                #EXT-X-MAP:URI="init.mp4"
                #EXT-X-KEY:METHOD=AES-128,URI="https://keys.test/k1"
                #EXTINF:4,
                s40.m4s
                #EXTINF:4,
                http://127.0.0.1:\(origin.port)/other/s41.m4s?token=a
                #EXTINF:4,
                s42.m4s
                #EXT-X-RENDITION-REPORT:URI="../v1/index.m3u8",LAST-MSN=42

                """
            origin.route("/live/v0/index.m3u8", .bytes(headers: [("Content-Type", "application/vnd.apple.mpegurl")], body: Array(playlist.utf8)))
            try await ProxyHarness.with(upstreamURL: origin.baseURL) { proxy in
                let first = try await proxy.get("/s/first/live/v0/index.m3u8").text
                let second = try await proxy.get("/s/second+x/live/v0/index.m3u8")
                let plain = try await proxy.get("/live/v0/index.m3u8").text
                let again = try await proxy.get("/s/first/live/v0/index.m3u8").text
                #expect(second.status == 404, "an unknown preset is refused before any rewrite: \(second.text)")
                let third = try await proxy.get("/s/third/live/v0/index.m3u8").text

                let uris = { (text: String) in text.split(separator: "\n").filter { $0.hasPrefix("/") || $0.contains("URI=") } }
                #expect(uris(first).count == 6)
                #expect(uris(first).allSatisfy { $0.contains("/s/first/~") || $0.contains("URI=\"../") }, "\(first)")
                #expect(third == first.replacingOccurrences(of: "/s/first/", with: "/s/third/"))
                #expect(plain == first.replacingOccurrences(of: "/s/first/", with: "/"))
                #expect(again == first)
                // The rendition report stays relative to the playlist, whichever session fetched it: from
                // /s/first/live/v0/ and from /live/v0/ alike it is two levels up.
                let report = #"#EXT-X-RENDITION-REPORT:URI="../../~media/http/127.0.0.1:\#(origin.port)/live/v1/index.m3u8",LAST-MSN=42"#
                #expect(first.contains(report), "\(first)")
                #expect(plain.contains(report), "\(plain)")
            }
        }
    }
}
