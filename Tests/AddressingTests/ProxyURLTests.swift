@testable import Addressing
import Testing

/// The URL grammar, pure: what a player sends and what the proxy writes.
@Suite struct ProxyURLTests {
    @Test func resourceTagsRoundTrip() throws {
        let tags = [
            ResourceTag(kind: .segment, variant: 2, msn: 42),
            ResourceTag(kind: .media, rendition: 1),
            ResourceTag(kind: .media, iFrameVariant: 0),
            ResourceTag(kind: .part, variant: 0, msn: 7, part: 3),
            ResourceTag(kind: .media, variant: 1, backup: true),
            ResourceTag(kind: .sessionData),
        ]
        for tag in tags {
            #expect(ResourceTag(component: Substring(tag.description)) == tag)
        }
        #expect(ResourceTag(kind: .segment, variant: 2, msn: 42).description == "~seg.v2.n42")
        // The wire form spells each kind as its raw value and each number in full.
        for kind in ResourceTag.Kind.allCases {
            #expect(ResourceTag(kind: kind).description == "~" + kind.rawValue)
        }
        for number in [0, 9, 10, 99, 100, 123_456_789, 999_999_999_999_999, Int.max, -7] {
            #expect(ResourceTag(kind: .part, msn: number).description == "~part.n\(number)")
        }
        for broken in ["~", "~seg.x1", "~seg.v", "~seg.v-1", "seg.v1", "~nope", "~seg.v1.n2.q"] {
            #expect(ResourceTag(component: Substring(broken)) == nil, "\(broken)")
        }
    }

    /// The paths of a playlist's segments, written with the tag's other fields once, are what the
    /// one layout (`appendRewrittenPath`) writes for each, and read back to the same tag and upstream.
    @Test func segmentPathsAreTheRewrittenPathsOfEachMSN() throws {
        let tags = [
            ResourceTag(kind: .segment),
            ResourceTag(kind: .segment, variant: 2, backup: true, pathway: "cdn-b"),
            ResourceTag(kind: .segment, rendition: 11, pathway: "a.b_c"),
            ResourceTag(kind: .segment, iFrameVariant: 0),
            ResourceTag(kind: .part, variant: 1, part: 3),
        ]
        for tag in tags {
            for prefix in ["", "/s/dev1", "/s/phone+presets"] {
                for pathAndQuery in ["/live/seg_1.ts", "?token=a/b", "/a/b/c.m4s?x=1&y=%2F"] {
                    let origin = SegmentOrigin(prefix: prefix, scheme: "https", authority: "cdn.example:8443", tag: tag)
                    for msn in [0, 9, 10, 183_400, Int.max, Int.min, -7] {
                        var tagged = tag
                        tagged.msn = msn
                        var written: [UInt8] = [1, 2]
                        let expected = origin.write(msn: msn, pathAndQuery: pathAndQuery, appendingTo: &written)
                        #expect(written == [1, 2] + expected, "\(tagged) \(prefix) \(pathAndQuery)")
                        if (0...1_000_000_000).contains(msn) {  // tags hold bounded numbers
                            let read = try #require(ProxyPath(written: String(decoding: written.dropFirst(2), as: UTF8.self)), "\(tagged)")
                            #expect(read.tag == tagged)
                            #expect(read.upstream?.url == "https://cdn.example:8443" + (pathAndQuery.hasPrefix("/") ? "" : "/") + pathAndQuery)
                        }
                    }
                }
            }
        }
    }

    /// One `SegmentPaths` for a whole playlist: MSNs counting up across 9 → 10, 99 → 100 and
    /// 999 → 1000, then jumps back, to negatives, to `Int.max` and on to `Int.min`, and paths that
    /// grow past the room first kept for them. Each path must be what `appendRewrittenPath` writes.
    @Test func segmentPathsFollowMSNsThatCountUpAndJump() {
        var msns = Array(0...12) + Array(95...102) + Array(997...1_003) + [5, 6, 7, -3, -2, -1, 0, 1]
        msns += [Int.max - 1, Int.max, Int.min, 999_999, 1_000_000, 42]
        let origin = SegmentOrigin(prefix: "/s/tv", scheme: "http", authority: "127.0.0.1:8080", tag: ResourceTag(kind: .segment, variant: 3, pathway: "cdn-a"))
        for (index, msn) in msns.enumerated() {
            let pathAndQuery = index % 3 == 0 ? "/live/\(String(repeating: "x", count: index * 40))/\(msn).ts" : "?n=\(index)"
            var written: [UInt8] = []
            let expected = origin.write(msn: msn, pathAndQuery: pathAndQuery, appendingTo: &written)
            #expect(String(decoding: written, as: UTF8.self) == String(decoding: expected, as: UTF8.self), "MSN \(msn) (step \(index))")
        }
    }

    /// One playlist's segment paths on one origin: what `SegmentPaths` appends for an MSN, and
    /// (returned) what `appendRewrittenPath` writes for the tag with that MSN.
    final class SegmentOrigin {
        let prefix: [UInt8], scheme: [UInt8], authority: [UInt8]
        let tag: ResourceTag
        let paths: ProxyPath.SegmentPaths

        init(prefix: String, scheme: String, authority: String, tag: ResourceTag) {
            let (prefix, scheme, authority) = (Array(prefix.utf8), Array(scheme.utf8), Array(authority.utf8))
            (self.prefix, self.scheme, self.authority, self.tag) = (prefix, scheme, authority, tag)
            paths = prefix.withUnsafeBufferPointer { p in
                scheme.withUnsafeBufferPointer { s in authority.withUnsafeBufferPointer { ProxyPath.SegmentPaths(prefix: p, tag: tag, scheme: s, authority: $0) } }
            }
        }

        func write(msn: Int, pathAndQuery: String, appendingTo written: inout [UInt8]) -> [UInt8] {
            var tagged = tag
            tagged.msn = msn
            var expected: [UInt8] = []
            let tail = Array(pathAndQuery.utf8)
            prefix.withUnsafeBufferPointer { p in
                scheme.withUnsafeBufferPointer { s in
                    authority.withUnsafeBufferPointer { a in
                        tail.withUnsafeBufferPointer { t in
                            ProxyPath.appendRewrittenPath(prefix: p, tag: tagged, scheme: s, authority: a, pathAndQuery: t, to: &expected)
                            paths.append(msn: msn, pathAndQuery: t, to: &written)
                        }
                    }
                }
            }
            return expected
        }
    }

    @Test func upstreamLocationsParseAbsoluteHTTPURLsOnly() throws {
        let location = try #require(UpstreamLocation(absolute: "HTTPS://User:pw@CDN.Example.com:8443/a/b/seg.ts?token=x&y=1#frag"))
        #expect(location.scheme == "https")
        #expect(location.authority == "cdn.example.com:8443")
        #expect(location.pathAndQuery == "/a/b/seg.ts?token=x&y=1")
        #expect(location.path == "/a/b/seg.ts")
        #expect(location.pathExtension == "ts")
        #expect(UpstreamLocation(absolute: "http://h")?.pathAndQuery == "/")
        #expect(UpstreamLocation(absolute: "http://h?x=1")?.pathAndQuery == "/?x=1")
        #expect(UpstreamLocation(absolute: "http://[::1]:8080/x")?.authority == "[::1]:8080")
        #expect(UpstreamLocation(absolute: "http://h/x")?.normalizedAuthority == "h:80")
        #expect(UpstreamLocation(absolute: "https://h/x")?.normalizedAuthority == "h:443")
        for bad in ["ftp://h/x", "skd://key", "data:text/plain,x", "/relative", "http:/h", "http://", "http://bad host/", "http://h\u{0}/"] {
            #expect(UpstreamLocation(absolute: bad) == nil, "\(bad)")
        }
    }

    @Test func proxyPathsParseEveryForm() throws {
        #expect(try ProxyPath(parsing: "/vod/master.m3u8?a=1") == ProxyPath(route: .origin(name: nil, pathAndQuery: "/vod/master.m3u8?a=1")))
        #expect(try ProxyPath(parsing: "/@cdn/x.m3u8") == ProxyPath(route: .origin(name: "cdn", pathAndQuery: "/x.m3u8")))
        // Paths that only look like the proxy's forms at a glance are the default origin's, whole.
        for entry in ["/", "/?s=1", "/s", "/sports/s/x.ts", "/x/~y/@z.ts", "/%7Eseg/x"] {
            #expect(try ProxyPath(parsing: entry) == ProxyPath(route: .origin(name: nil, pathAndQuery: entry)), "\(entry)")
        }
        let device = try ProxyPath(parsing: "/s/tv-1+status-503+gap/@cdn/x.m3u8")
        #expect(device.session == "tv-1")
        #expect(device.presets == ["status-503", "gap"])
        #expect(device.sessionPrefix == "/s/tv-1+status-503+gap")
        let rewritten = try ProxyPath(parsing: "/s/a/~seg.v1.n9/https/cdn.example.com/p/s.ts?t=1")
        #expect(rewritten.tag == ResourceTag(kind: .segment, variant: 1, msn: 9))
        guard case .rewritten(_, let upstream) = rewritten.route else { Issue.record("not rewritten"); return }
        #expect(upstream.url == "https://cdn.example.com/p/s.ts?t=1")
        #expect(rewritten.rewrittenURI(tag: rewritten.tag!, upstream: upstream) == "/s/a/~seg.v1.n9/https/cdn.example.com/p/s.ts?t=1")
    }

    @Test func badPathsAreTypedErrors() {
        #expect(throws: ProxyPath.ParseError.notAbsolutePath("http://x/y")) { try ProxyPath(parsing: "http://x/y") }
        #expect(throws: ProxyPath.ParseError.badSession("bad id")) { try ProxyPath(parsing: "/s/bad id/x") }
        #expect(throws: ProxyPath.ParseError.badSession("")) { try ProxyPath(parsing: "/s//x") }
        #expect(throws: ProxyPath.ParseError.badRewrittenURL("/~seg.v1/ftp/h/x")) { try ProxyPath(parsing: "/~seg.v1/ftp/h/x") }
        #expect(throws: ProxyPath.ParseError.badRewrittenURL("/~seg.v1/http")) { try ProxyPath(parsing: "/~seg.v1/http") }
        #expect(throws: ProxyPath.ParseError.badOriginName("a b")) { try ProxyPath(parsing: "/@a b/x") }
    }

    @Test func redirectHopCounterIsStrippedAndAdded() throws {
        #expect(try RedirectHop.split("/a.ts?x=1&hlschaos-hop=2&y=3") == ("/a.ts?x=1&y=3", 2))
        #expect(try RedirectHop.split("/a.ts?hlschaos-hop=1") == ("/a.ts", 1))
        #expect(try RedirectHop.split("/a.ts") == ("/a.ts", 0))
        #expect(RedirectHop.target("/a.ts", hop: 1) == "/a.ts?hlschaos-hop=1")
        #expect(RedirectHop.target("/a.ts?x=1", hop: 2) == "/a.ts?x=1&hlschaos-hop=2")
    }

    @Test func hopCountersNotWrittenByTheProxyAreRefused() {
        for bad in ["9223372036854775807", "99999999999999999999", "-1", "101", "", "x", "1&hlschaos-hop=1"] {
            #expect(throws: RedirectHop.Invalid.self, "\(bad)") { try RedirectHop.split("/a.ts?hlschaos-hop=\(bad)") }
        }
    }

    @Test func tagNumbersAreBounded() {
        #expect(ResourceTag(component: "~seg.v1.n999999999999999") != nil)
        #expect(ResourceTag(component: "~seg.v1.n9223372036854775807") == nil)
        #expect(ResourceTag(component: "~seg.v99999999999999999999") == nil)
        #expect(ResourceTag(component: "~seg.v1.n-1") == nil)
    }

    @Test func entryPlaylistsAreToldApartByTheirTags() {
        #expect(ResourceTag(entryPlaylist: Array("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n".utf8))?.kind == .master)
        #expect(ResourceTag(entryPlaylist: Array("\u{FEFF}#EXTM3U\n#EXTINF:2,\ns.ts\n".utf8))?.kind == .media)
        #expect(ResourceTag(entryPlaylist: Array("<html>".utf8)) == nil)
        let iFramesOnly = "#EXTM3U\n#EXT-X-VERSION:4\n#EXT-X-INDEPENDENT-SEGMENTS\n#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=1,URI=\"i.m3u8\"\n"
        #expect(ResourceTag(entryPlaylist: Array(iFramesOnly.utf8))?.kind == .master)
        // The first tag only one kind may hold decides: a media playlist is not read to its end.
        let media = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n" + String(repeating: "#EXTINF:4,\ns.ts\n", count: 3) + "#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n"
        #expect(ResourceTag(entryPlaylist: Array(media.utf8))?.kind == .media)
        #expect(ResourceTag(entryPlaylist: Array("#EXTM3U\n#EXT-X-ENDLIST\n".utf8))?.kind == .media)
    }
}
