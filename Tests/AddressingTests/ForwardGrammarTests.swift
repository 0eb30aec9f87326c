@testable import Addressing
import Testing

/// Forward mode's grammar, pure: the tag as a query parameter, CONNECT targets, addresses and
/// networks, proxy credentials and the sessions they name.
@Suite struct ForwardGrammarTests {
    @Test func theTagParameterIsAddedLastAndRemovedWithoutTouchingTheRestOfTheQuery() throws {
        let upstream = try #require(UpstreamLocation(absolute: "https://cdn.example.com/v2/seg42.ts?token=a%2Fb&x=1"))
        let tag = ResourceTag(kind: .segment, variant: 2, msn: 42)
        let url = ForwardTag.url(upstream, tag: tag)
        #expect(url == "https://cdn.example.com/v2/seg42.ts?token=a%2Fb&x=1&hlschaos=seg.v2.n42")
        let split = try ForwardTag.split(url)
        #expect(split.url == upstream.url)
        #expect(split.tag == tag)
        let bare = try #require(UpstreamLocation(absolute: "http://h/a.m3u8"))
        #expect(ForwardTag.url(bare, tag: ResourceTag(kind: .media, variant: 0)) == "http://h/a.m3u8?hlschaos=media.v0")
        #expect(try ForwardTag.split("http://h/a.m3u8?hlschaos=media.v0").url == "http://h/a.m3u8")
        // Another parameter that merely starts with the name is not the proxy's.
        #expect(try ForwardTag.split("http://h/a.ts?hlschaos-hop=1&hlschausx=2").tag == nil)
        for bad in ["http://h/a.ts?hlschaos=nope", "http://h/a.ts?hlschaos=seg.v1&hlschaos=seg.v2", "http://h/a.ts?hlschaos="] {
            #expect(throws: ForwardTag.Invalid.self, "\(bad)") { try ForwardTag.split(bad) }
        }
    }

    @Test func forwardPathsRoundTripAndWriteURIsOnTheirOwnHost() throws {
        let path = try ProxyPath(forwarding: "https://cdn.example.com/v2/seg42.ts?t=1&hlschaos=seg.v2.n42", session: "tv1", presets: ["gap"])
        #expect(path.tag == ResourceTag(kind: .segment, variant: 2, msn: 42))
        #expect(path.upstream?.url == "https://cdn.example.com/v2/seg42.ts?t=1")
        #expect(path.target == "https://cdn.example.com/v2/seg42.ts?t=1&hlschaos=seg.v2.n42")
        let other = try #require(UpstreamLocation(absolute: "https://edge.example.net/s.ts"))
        #expect(path.rewrittenURI(tag: ResourceTag(kind: .segment, msn: 3), upstream: other) == "https://edge.example.net/s.ts?hlschaos=seg.n3")
        #expect(ProxyPath(written: "https://edge.example.net/s.ts?hlschaos=seg.n3")?.upstream == other)
        #expect(ProxyPath(written: "https://edge.example.net/s.ts") == nil)
        #expect(ProxyPath(written: "/s/tv1/~seg.n3/https/edge.example.net/s.ts")?.upstream == other)
        #expect(throws: ProxyPath.ParseError.self) { try ProxyPath(forwarding: "ftp://x/y", session: nil, presets: []) }
    }

    @Test func connectTargetsNeedAHostAndAPort() throws {
        #expect(try ConnectTarget(parsing: "CDN.example.com:443") == ConnectTarget(host: "cdn.example.com", port: 443))
        #expect(try ConnectTarget(parsing: "[2001:db8::1]:8443") == ConnectTarget(host: "2001:db8::1", port: 8443))
        #expect(try ConnectTarget(parsing: "10.0.0.1:80").authority == "10.0.0.1:80")
        #expect(try ConnectTarget(parsing: "h.example:443").authority == "h.example")
        #expect(try ConnectTarget(parsing: "[::1]:443").authority == "[::1]")
        let cases: [(String, ConnectTarget.ParseError)] = [
            ("cdn.example.com", .noPort("cdn.example.com")), ("cdn.example.com:", .noPort("cdn.example.com:")),
            ("cdn.example.com:0", .badPort("cdn.example.com:0")), ("h:65536", .badPort("h:65536")), ("h:-1", .badPort("h:-1")),
            ("h:+80", .badPort("h:+80")), ("::1:443", .noPort("::1:443")), ("[::1:443", .badHost("[::1:443")),
            (":443", .badHost(":443")), ("a b:80", .badHost("a b:80")), ("[1.2.3.4]:80", .badHost("[1.2.3.4]:80")),
            ("-x.example:80", .badHost("-x.example:80")),
        ]
        for (text, error) in cases {
            #expect(throws: error, "\(text)") { try ConnectTarget(parsing: text) }
        }
        #expect(throws: ConnectTarget.ParseError.self) { try ConnectTarget(parsing: String(repeating: "a", count: 400) + ":80") }
    }

    @Test func addressesAndNetworks() throws {
        #expect(IPAddress("192.168.1.20")?.description == "192.168.1.20")
        #expect(IPAddress("FD00:0:0::0001")?.description == "fd00::1")
        #expect(IPAddress("2001:db8:0:0:1:0:0:1")?.description == "2001:db8::1:0:0:1")
        #expect(IPAddress("::")?.description == "::")
        #expect(IPAddress("1:0:2:3:4:5:6:7")?.description == "1:0:2:3:4:5:6:7")
        #expect(IPAddress("::ffff:10.0.0.1")?.description == "10.0.0.1")
        #expect(IPAddress("::1")?.isLoopback == true)
        #expect(IPAddress("127.9.9.9")?.isLoopback == true)
        #expect(IPAddress("169.254.169.254")?.isLinkLocal == true)
        #expect(IPAddress("fe80::1%eth0")?.isLinkLocal == true)
        #expect(IPAddress("0.0.0.0")?.isUnspecified == true)
        #expect(IPAddress("2001:db8::ffff:1.2.3.4")?.bytes.suffix(4) == [1, 2, 3, 4])
        for bad in ["", "1.2.3", "1.2.3.256", "1.2.3.4.5", "01234::", "1::2::3", "g::1", "1.2.3.04444", "::ffff:1.2.3"] {
            #expect(IPAddress(bad) == nil, "\(bad)")
        }
        let lan = try #require(NetworkRange("192.168.1.0/24"))
        #expect(lan.contains(IPAddress("192.168.1.200")!))
        #expect(!lan.contains(IPAddress("192.168.2.1")!))
        #expect(lan.contains(IPAddress("::ffff:192.168.1.1")!))  // how a dual-stack listener sees an IPv4 client
        #expect(try #require(NetworkRange("fd00::/8")).contains(IPAddress("fd12::1")!))
        #expect(try #require(NetworkRange("10.1.2.3")).contains(IPAddress("10.1.2.3")!))
        #expect(try #require(NetworkRange("0.0.0.0/0")).contains(IPAddress("8.8.8.8")!))
        for bad in ["192.168.1.0/33", "fd00::/129", "x/8", "10.0.0.0/", "10.0.0.0/-1"] {
            #expect(NetworkRange(bad) == nil, "\(bad)")
        }
    }

    @Test func proxyUsersNameSessionsWithTheGrammarOfTheSessionPrefix() throws {
        // "tv1+status-503:secret" in base64.
        let credentials = try #require(ProxyCredentials(header: "Basic dHYxK3N0YXR1cy01MDM6c2VjcmV0"))
        #expect(credentials == ProxyCredentials(user: "tv1+status-503", password: "secret"))
        #expect(try credentials.session() == ("tv1", ["status-503"]))
        #expect(ProxyCredentials(header: "Basic dXNlcjpwYTpzcw==")?.password == "pa:ss")
        for bad in ["Bearer abc", "Basic", "Basic !!!", "Basic dXNlcg=="] {  // the last has no colon
            #expect(ProxyCredentials(header: bad) == nil, "\(bad)")
        }
        #expect(throws: ProxyCredentials.BadUser.self) { try ProxyCredentials(user: "tv 1", password: "").session() }
        #expect(throws: ProxyCredentials.BadUser.self) { try ProxyCredentials(user: "", password: "").session() }
        #expect(ProxyCredentials.session(forClientAddress: "192.168.1.20") == "ip-192-168-1-20")
        #expect(ProxyCredentials.session(forClientAddress: "fe80::1") == "ip-fe80--1")
        #expect(ProxyPath.isValidName(ProxyCredentials.session(forClientAddress: "2001:db8:aaaa:bbbb:cccc:dddd:eeee:ffff")))
    }

    @Test func interceptPatterns() {
        #expect(HostName.matches("cdn.example.com", pattern: "cdn.example.com"))
        #expect(HostName.matches("a.cdn.example.com", pattern: "*.example.com"))
        #expect(!HostName.matches("example.com", pattern: "*.example.com"))
        #expect(!HostName.matches("badexample.com", pattern: "*.example.com"))
        #expect(HostName.matches("anything", pattern: "*"))
        #expect(HostName.isValid("cdn-1.example.com.") && !HostName.isValid("a..b") && !HostName.isValid(String(repeating: "a", count: 64)))
    }
}
