import Addressing
import Foundation
import HLS
@testable import Proxy
import Testing
import TestSupport

/// The rewriter cuts the path off URIs that share the origin of the URI before (no parse of their
/// own); every URI must come out as a full parse of its absolute form would write it.
@Suite struct PlaylistRewriterTests {
    @Test func urisUnderASharedOriginAreWrittenAsAFullParseWouldWriteThem() throws {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXT-X-MEDIA-SEQUENCE:7
            #EXTINF:4,
            a.ts?token=1
            #EXTINF:4,
            http://origin.test:8080/other/b.ts
            #EXTINF:4,
            http://origin.test:8080?only=query
            #EXTINF:4,
            http://origin.test:8080/c.ts#fragment
            #EXTINF:4,
            http://ORIGIN.test:8080/d.ts
            #EXTINF:4,
            http://user@origin.test:8080/e.ts
            #EXTINF:4,
            https://cdn.test/f.ts
            #EXTINF:4,
            https://cdn.test:443/g.ts
            #EXTINF:4,
            http://origin.test:80801/h.ts
            #EXTINF:4,
            skd://key
            #EXT-X-ENDLIST

            """
        let url = "http://origin.test:8080/live/media.m3u8"
        var playlist = try Playlist(bytes: Array(text.utf8), url: URL(string: url))
        let request = try ProxyPath(parsing: "/s/dev/~media.v1/http/origin.test:8080/live/media.m3u8")
        let rewriter = PlaylistRewriter(
            request: request, clientPath: "/s/dev/~media.v1/http/origin.test:8080/live/media.m3u8",
            playlistTag: ResourceTag(kind: .media, variant: 1),
            allowlist: HostAllowlist(origins: [UpstreamLocation(absolute: url)!]))
        let expected = playlist.uriReferences.map { reference -> String in
            guard let absolute = reference.absoluteString, let upstream = UpstreamLocation(absolute: absolute) else { return reference.original }
            return request.rewrittenURI(tag: rewriter.tag(for: reference.facts), upstream: upstream)
        }
        rewriter.rewrite(&playlist)
        let written = playlist.segments.map(\.uri)
        #expect(written == expected)
        #expect(written[0] == "/s/dev/~seg.v1.n7/http/origin.test:8080/live/a.ts?token=1")
        #expect(written[2] == "/s/dev/~seg.v1.n9/http/origin.test:8080/?only=query")
        #expect(written[3] == "/s/dev/~seg.v1.n10/http/origin.test:8080/c.ts", "the fragment is not sent upstream")
        #expect(written[4] == "/s/dev/~seg.v1.n11/http/origin.test:8080/d.ts", "the host is lowercased")
        #expect(written[8] == "/s/dev/~seg.v1.n15/http/origin.test:80801/h.ts", "a longer port is another origin")
        #expect(written[9] == "skd://key")
    }

    /// A TYPE=MAP preload hint names the next init section: its URI is tagged as one, a PART hint's
    /// as the part it names.
    @Test func aMapPreloadHintIsTaggedAsAnInitSection() throws {
        let text = PlaylistFixtures.lowLatencyWithMapHint
        let url = "http://origin.test:8080/live/media.m3u8"
        var playlist = try Playlist(bytes: Array(text.utf8), url: URL(string: url))
        let rewriter = PlaylistRewriter(
            request: try ProxyPath(parsing: "/s/dev/~media.v1/http/origin.test:8080/live/media.m3u8"),
            clientPath: "/s/dev/~media.v1/http/origin.test:8080/live/media.m3u8",
            playlistTag: ResourceTag(kind: .media, variant: 1),
            allowlist: HostAllowlist(origins: [UpstreamLocation(absolute: url)!]))
        rewriter.rewrite(&playlist)
        #expect(playlist.preloadHints.map(\.uri) == [
            "/s/dev/~part.v1.n11.p1/http/origin.test:8080/live/part11.1.m4s",
            "/s/dev/~init.v1.n11/http/origin.test:8080/live/init2.mp4",
        ])
        let hint = try ProxyPath(parsing: playlist.preloadHints[1].uri)
        #expect(hint.tag?.resourceKind == .`init`)
    }
}
