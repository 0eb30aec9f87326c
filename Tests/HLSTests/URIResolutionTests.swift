import Foundation
import Testing
@testable import HLS

@Suite struct URIResolutionTests {
    /// RFC 3986 §5.4.1 and §5.4.2 with base http://a/b/c/d;p?q.
    @Test(arguments: [
        ("g:h", "g:h"), ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"),
        ("/g", "http://a/g"), ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"),
        ("#s", "http://a/b/c/d;p?q#s"), ("g#s", "http://a/b/c/g#s"), ("g?y#s", "http://a/b/c/g?y#s"),
        (";x", "http://a/b/c/;x"), ("g;x", "http://a/b/c/g;x"), ("g;x?y#s", "http://a/b/c/g;x?y#s"),
        ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"), ("./", "http://a/b/c/"), ("..", "http://a/b/"),
        ("../", "http://a/b/"), ("../g", "http://a/b/g"), ("../..", "http://a/"), ("../../", "http://a/"),
        ("../../g", "http://a/g"), ("../../../g", "http://a/g"), ("../../../../g", "http://a/g"),
        ("/./g", "http://a/g"), ("/../g", "http://a/g"), ("g.", "http://a/b/c/g."), (".g", "http://a/b/c/.g"),
        ("g..", "http://a/b/c/g.."), ("..g", "http://a/b/c/..g"), ("./../g", "http://a/b/g"), ("./g/.", "http://a/b/c/g/"),
        ("g/./h", "http://a/b/c/g/h"), ("g/../h", "http://a/b/c/h"), ("g;x=1/./y", "http://a/b/c/g;x=1/y"),
        ("g;x=1/../y", "http://a/b/c/y"), ("g?y/./x", "http://a/b/c/g?y/./x"), ("g#s/../x", "http://a/b/c/g#s/../x"),
        ("http:g", "http:g"),
    ])
    func rfc3986Examples(reference: String, expected: String) {
        let resolver = URIResolver(base: URL(string: "http://a/b/c/d;p?q"))
        #expect(resolver.resolve(reference) == expected)
        #expect(resolver.resolvedBytes(reference) == expected)
    }

    @Test func playlistCases() {
        let resolver = URIResolver(base: URL(string: "https://cdn.example.com/live/stream/index.m3u8?token=abc"))
        #expect(resolver.resolve("seg1.ts") == "https://cdn.example.com/live/stream/seg1.ts")
        #expect(resolver.resolve("../audio/en.m3u8") == "https://cdn.example.com/live/audio/en.m3u8")
        #expect(resolver.resolve("//other.example.com/x.ts") == "https://other.example.com/x.ts")
        #expect(resolver.resolve("?token=new") == "https://cdn.example.com/live/stream/index.m3u8?token=new")
        #expect(resolver.resolve("http://abs.example.com/a/../b.ts") == "http://abs.example.com/b.ts")
        #expect(resolver.resolve("skd://key-id") == "skd://key-id")
        #expect(resolver.resolve("/root.ts?x=1#f") == "https://cdn.example.com/root.ts?x=1#f")
        #expect(URIResolver(base: URL(string: "https://host")).resolve("a.ts") == "https://host/a.ts")
        #expect(URIResolver(base: nil).resolve("a.ts") == nil)
        #expect(URIResolver(base: nil).resolve("https://h/a.ts") == "https://h/a.ts")
        #expect(resolver.resolve("has space.ts") == nil)
        // The byte form (the streaming rewrite's) writes the same, its shortcuts included.
        let cases = ["seg1.ts", "../audio/en.m3u8", "//other.example.com/x.ts", "?token=new", "http://abs.example.com/a/../b.ts",
                     "skd://key-id", "/root.ts?x=1#f", "has space.ts", "HTTPS://CDN.example.com/a/b.ts?x=/./y", "https:./a",
                     "data:text/plain,x", "a.b/c.d/e.ts", "https://h/a.ts#frag/../x", "1http://h/a.ts", "x+y.z-w:rest"]
        for reference in cases {
            #expect(resolver.resolvedBytes(reference) == resolver.resolve(reference), "\(reference)")
        }
        #expect(URIResolver(base: nil).resolvedBytes("a.ts") == nil)
        #expect(URIResolver(base: nil).resolvedBytes("https://h/a.ts") == "https://h/a.ts")
    }

    @Test func referencesCarryAbsoluteURLs() throws {
        let playlist = try Corpus.playlist("handmade/discontinuities-keys-maps-gap.m3u8",
                                           url: "https://origin.example.com/vod/a/index.m3u8")
        let segments = playlist.uriReferences.filter { $0.kind == .segment }
        #expect(segments.last?.absoluteString == "https://other.example.com/c/1006.m4s")
        #expect(segments[5].absoluteString == "https://origin.example.com/vod/c/1005.m4s?sig=abc")
        #expect(segments[5].absolute == URL(string: "https://origin.example.com/vod/c/1005.m4s?sig=abc"))
        #expect(playlist.uriReferences.first { $0.kind == .key && $0.original == "skd://k2" }?.absoluteString == "skd://k2")
    }
}

extension URIResolver {
    /// `resolve(_:appendingTo:)` read back as a string, nil when it appended nothing.
    func resolvedBytes(_ reference: String) -> String? {
        var output: [UInt8] = []
        let resolved = Array(reference.utf8).withUnsafeBufferPointer { resolve($0, appendingTo: &output) }
        return resolved ? String(decoding: output, as: UTF8.self) : nil
    }
}
