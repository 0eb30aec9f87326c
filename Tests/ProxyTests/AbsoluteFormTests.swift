import Testing
import Upstream

@testable import Proxy

/// Which request targets are forward-proxy requests (`GET http://host/…`): the check every request
/// goes through before its path is read.
@Suite struct AbsoluteFormTests {
    @Test(arguments: ["http://cdn.example/a.m3u8", "https://cdn.example/", "HTTP://CDN/", "HtTpS://x", "http://"])
    func absoluteTargetsAreForwardRequests(_ target: String) {
        #expect(ProxyHandler.isAbsoluteForm(target))
    }

    @Test(arguments: ["/s/tv1/master.m3u8", "/http://x", "http:/x", "https:x", "httpx://y", "ftp://x", "", "h", "http:", "https:/"])
    func pathsAndOtherSchemesAreNot(_ target: String) {
        #expect(!ProxyHandler.isAbsoluteForm(target))
    }

    @Test func aBridgedOrSlicedStringIsComparedTheSameWay() {
        // Not every String is contiguous UTF-8 in memory; the slow path must agree.
        let sliced = String("xxhttps://cdn/".dropFirst(2))
        #expect(ProxyHandler.isAbsoluteForm(sliced))
        #expect("Content-Length".asciiCaseInsensitiveEquals("content-length"))
        #expect(!"Content-Lengtx".asciiCaseInsensitiveEquals("content-length"))
        #expect("If-None-Match".asciiCaseInsensitiveHasPrefix("if-"))
        #expect(!"I".asciiCaseInsensitiveHasPrefix("if-"))
    }
}
