import Addressing
import DemoOrigin
import Foundation
import HLS
import Proxy
import Testing
import TestSupport

/// The demo origin through the proxy: every byte a player fetches is the origin's, every playlist line
/// that is not a URI is the origin's, and every URI leads back through the proxy.
@Suite struct DemoThroughProxyTests {
    static let vodMasters = ["/vod/ts/master.m3u8", "/vod/fmp4/master.m3u8", "/vod/aes/master.m3u8", "/vod/byterange/master.m3u8"]

    @Test(arguments: vodMasters)
    func everyResourceIsByteIdenticalAndEveryURIGoesThroughTheProxy(master: String) async throws {
        try await ProxyHarness.withDemo { proxy, _ in
            let demo = try #require(proxy.demo)
            var checked = (playlists: 0, resources: 0)

            var playlists = [master]
            var seenResources = Set<String>()
            while let target = playlists.popLast() {
                let proxied = try await proxy.get(target)
                #expect(proxied.status == 200, "\(target)")
                let originURL = try Self.originURL(of: target, demo: demo)
                let direct = try await RawHTTP.get(port: demo.port, String(originURL.dropFirst(demo.baseURL.count)))
                try Self.expectSameLinesExceptURIs(proxied: proxied.text, origin: direct.text, context: target)
                checked.playlists += 1

                let playlist = try Playlist(string: proxied.text, url: URL(string: "http://127.0.0.1:\(proxy.port)\(target)"))
                var references: [URIReference] = []
                var copy = playlist
                copy.rewriteURIs { references.append($0); return nil }
                for reference in references {
                    #expect(reference.original.hasPrefix("/~"), "\(reference.original) in \(target) does not go through the proxy")
                    switch reference.kind {
                    case .variant, .rendition, .iFrameVariant:
                        playlists.append(reference.original)
                    default:
                        let range = playlist.segments.first { $0.uri == reference.original }?.byteRange
                        let key = reference.original + (range.map { " \($0.offset)+\($0.length)" } ?? "")
                        guard seenResources.insert(key).inserted else { continue }
                        let headers = range.map { [("Range", "bytes=\($0.offset)-\($0.offset + $0.length - 1)")] } ?? []
                        let viaProxy = try await proxy.get(reference.original, headers: headers)
                        let upstream = try Self.originURL(of: reference.original, demo: demo)
                        let viaOrigin = try await RawHTTP.get(port: demo.port, String(upstream.dropFirst(demo.baseURL.count)), headers: headers)
                        #expect(viaProxy.status == viaOrigin.status, "\(reference.original)")
                        #expect(viaProxy.body == viaOrigin.body, "\(reference.original) differs from \(upstream)")
                        #expect(!viaProxy.body.isEmpty)
                        checked.resources += 1
                    }
                }
            }
            #expect(checked.playlists >= 4)
            #expect(checked.resources >= 20)
        }
    }

    @Test func sessionPrefixIsKeptInEveryURI() async throws {
        try await ProxyHarness.withDemo { proxy, _ in
            let master = try await proxy.get("/s/tv-1/vod/ts/master.m3u8")
            #expect(master.status == 200)
            let uris = master.text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }
            #expect(uris.count == 3)
            for uri in uris { #expect(uri.hasPrefix("/s/tv-1/~media.v")) }
            #expect(master.text.contains("URI=\"/s/tv-1/~media.r0/http/127.0.0.1:"))
            let media = try await proxy.get(String(uris[0]))
            let segments = media.text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }
            #expect(segments.first?.hasPrefix("/s/tv-1/~seg.v0.n0/") == true)
            #expect(segments.first?.hasSuffix(".ts") == true)
            #expect(proxy.server.control.sessions().map(\.id).contains("tv-1"))
        }
    }

    @Test func repeatedPlaylistsKeepEachSessionsPrefixAndFollowTheOrigin() async throws {
        try await ProxyHarness.withDemo { proxy, _ in
            for _ in 0..<2 {
                for session in ["a", "b"] {
                    let text = try await proxy.get("/s/\(session)/vod/ts/master.m3u8").text
                    let uris = text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }
                    #expect(uris.count == 3)
                    #expect(uris.allSatisfy { $0.hasPrefix("/s/\(session)/~media.v") })
                }
            }
            let plain = try await proxy.get("/vod/ts/master.m3u8").text
            #expect(plain.contains("\n/~media.v0/"))
        }
    }

    @Test func liveURIsAreStableAcrossReloads() async throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_700_000_000))
        try await ProxyHarness.withDemo(clock: { clock.now }) { proxy, _ in
            let master = try await proxy.get("/live/ts/master.m3u8")
            let variant = try #require(master.text.split(separator: "\n").first { $0.hasPrefix("/~media.v1/") })
            let first = try await proxy.get(String(variant))
            clock.advance(by: 4)
            let second = try await proxy.get(String(variant))
            let a = try Playlist(string: first.text), b = try Playlist(string: second.text)
            #expect(b.mediaSequence == a.mediaSequence + 2)
            for segment in b.segments {
                if let same = a.segments.first(where: { $0.msn == segment.msn }) {
                    #expect(same.uri == segment.uri, "MSN \(segment.msn) changed URI across reloads")
                }
                #expect(segment.uri.contains("~seg.v1.n\(segment.msn)/"))
            }
        }
    }

    /// The upstream URL a proxy path stands for.
    static func originURL(of target: String, demo: DemoOriginServer) throws -> String {
        let path = try ProxyPath(parsing: target)
        if case .origin(_, let pathAndQuery) = path.route { return demo.baseURL + pathAndQuery }
        return try #require(path.upstream).url
    }

    /// Every line equal except for URIs (URI lines and URI="…" attributes).
    static func expectSameLinesExceptURIs(proxied: String, origin: String, context: String) throws {
        func normalized(_ text: String) -> [String] {
            text.components(separatedBy: "\n").map { line in
                if !line.hasPrefix("#") && !line.trimmingCharacters(in: .whitespaces).isEmpty { return "<URI>" }
                return line.replacingOccurrences(of: #"URI="[^"]*""#, with: #"URI="<URI>""#, options: .regularExpression)
            }
        }
        #expect(normalized(proxied) == normalized(origin), "\(context): non-URI lines differ")
    }
}

/// A clock tests move by hand.
final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    init(_ start: Date) { current = start }
    var now: Date { lock.withLock { current } }
    func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }
}
