import Addressing
import Testing

/// URL → parts → URL: every path the proxy writes parses back to what it was written from, and every
/// path a client sends writes back to a target that parses the same. Seeded, so a failure repeats.
@Suite struct ProxyPathRoundTripTests {
    @Test(arguments: [1, 2, 3, 4]) func generatedPathsRoundTrip(seed: UInt64) throws {
        var random = SplitMix(seed: seed)
        for _ in 0..<2_000 {
            let path = random.proxyPath()
            let parsed = try ProxyPath(parsing: path.target)
            #expect(parsed == path, "\(path.target)")
            #expect(parsed.target == path.target)
        }
    }

    @Test func clientTargetsWriteBackToTheSameParts() throws {
        for target in [
            "/", "/vod/master.m3u8", "/vod/master.m3u8?token=a%2Fb&x=1", "/@cdn/live/v.m3u8", "/s/tv1", "/s/tv1/",
            "/s/tv1+gap+status-503/@cdn/a.ts?x", "/s/a/~seg.v1.n9/https/cdn.example.com:8443/p/s.ts?t=1",
            "/~media.r2/http/[::1]:8080/a.m3u8", "/~part.v0.n7.p3/http/h/p.m4s", "/~media.v1.b/http/h/",
        ] {
            let parts = try ProxyPath(parsing: target)
            #expect(try ProxyPath(parsing: parts.target) == parts, "\(target)")
        }
    }

    @Test func theProxysFormsAreReservedAtTheStartOfADefaultOriginPath() throws {
        // A default-origin path that begins like one of the proxy's forms is read as that form.
        #expect(try ProxyPath(parsing: "/@x/y").route == .origin(name: "x", pathAndQuery: "/y"))
        #expect(try ProxyPath(parsing: "/s/x/y").session == "x")
        #expect(throws: ProxyPath.ParseError.self) { try ProxyPath(parsing: "/~x/y") }
    }
}

/// SplitMix64: a small seeded generator, so that the same seed makes the same paths everywhere.
private struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func name() -> String {
        let letters = Array("abcXYZ019._-")
        return String((0..<Int.random(in: 1...12, using: &self)).map { _ in letters.randomElement(using: &self)! })
    }

    mutating func maybe<T>(_ make: (inout SplitMix) -> T) -> T? {
        Bool.random(using: &self) ? make(&self) : nil
    }

    mutating func number() -> Int {
        Bool.random(using: &self) ? Int.random(in: 0...9, using: &self) : Int.random(in: 0...999_999_999_999_999, using: &self)
    }

    /// A path and query as a player or a playlist carries them: percent escapes, query, no reserved start.
    mutating func pathAndQuery() -> String {
        let words = ["seg", "v1", "master.m3u8", "a%2Fb", "x y", "ü", "s", "@", "~", "index.ts", ""]
        var path = ""
        for index in 0..<Int.random(in: 1...4, using: &self) {
            var word = words.randomElement(using: &self)!
            // The proxy's own forms may not open a default-origin path (see the reserved-start test).
            if index == 0, word == "s" || word.hasPrefix("@") || word.hasPrefix("~") { word = "p" }
            path += "/" + word
        }
        if Bool.random(using: &self) { path += "?token=" + name() + "&_HLS_msn=" + String(number()) }
        return path
    }

    mutating func tag() -> ResourceTag {
        ResourceTag(
            kind: ResourceTag.Kind.allCases.randomElement(using: &self)!,
            variant: maybe { $0.number() }, rendition: maybe { $0.number() }, iFrameVariant: maybe { $0.number() },
            msn: maybe { $0.number() }, part: maybe { $0.number() }, backup: Bool.random(using: &self))
    }

    mutating func proxyPath() -> ProxyPath {
        let session = maybe { $0.name() }
        let presets = session == nil ? [] : (0..<Int.random(in: 0...3, using: &self)).map { _ in name() }
        let route: ProxyPath.Route
        if Bool.random(using: &self) {
            route = .origin(name: maybe { $0.name() }, pathAndQuery: pathAndQuery())
        } else {
            let hosts = ["cdn.example.com", "h:8080", "[::1]:443", "10.0.0.1"]
            let upstream = UpstreamLocation(
                scheme: Bool.random(using: &self) ? "http" : "https", authority: hosts.randomElement(using: &self)!,
                pathAndQuery: pathAndQuery())!
            route = .rewritten(tag: tag(), upstream: upstream)
        }
        return ProxyPath(session: session, presets: presets, route: route)
    }
}
