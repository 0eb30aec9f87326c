import Testing
@testable import Proxy

@Suite struct KnownHeaderNameTests {
    /// Every name the table knows, in its own spelling: found whatever the case.
    @Test func everyKnownNameIsFoundInAnyCase() {
        let names: [(String, KnownHeaderName)] = [
            ("connection", .connection), ("keep-alive", .keepAlive), ("proxy-connection", .proxyConnection),
            ("proxy-authenticate", .proxyAuthenticate), ("proxy-authorization", .proxyAuthorization), ("te", .te),
            ("trailer", .trailer), ("trailers", .trailers), ("transfer-encoding", .transferEncoding), ("upgrade", .upgrade),
            ("host", .host), ("expect", .expect), ("accept-encoding", .acceptEncoding), ("range", .range),
            ("content-length", .contentLength), ("content-encoding", .contentEncoding), ("content-range", .contentRange),
            ("content-md5", .contentMD5), ("etag", .etag), ("accept-ranges", .acceptRanges), ("content-type", .contentType),
            ("location", .location), ("retry-after", .retryAfter), ("x-hlschaos-fault", .xHlschaosFault),
            ("access-control-allow-origin", .accessControlAllowOrigin),
        ]
        for (name, known) in names {
            #expect(KnownHeaderName(name) == known, "\(name)")
            #expect(KnownHeaderName(name.uppercased()) == known, "\(name.uppercased())")
            #expect(KnownHeaderName(String(name.prefix(1)).uppercased() + name.dropFirst()) == known)
        }
    }

    /// Names of the same length that differ by one byte are not taken for known ones, nor those
    /// whose only difference a careless case folding (`| 0x20`) would hide: CR becomes `-`.
    @Test func nearNamesAreUnknown() {
        for name in ["tf", "hosts", "etah", "ranges", "content-lengthx", "connectiom", "keep_alive", "conte\u{e9}t-type", "",
                     "x-request-id", "cache-control", "content\rlength", "keep\ralive", "x\rhlschaos\rfault", "access-control-allow-originx", "access-control-allow-orig1n"] {
            #expect(KnownHeaderName(name) == nil, "\(name)")
        }
    }

    @Test func theGroupsAreRFC9110sHopByHopAndWhatDescribesTheOriginsBytes() {
        #expect(KnownHeaderName("Transfer-Encoding")?.isHopByHop == true)
        #expect(KnownHeaderName("Keep-Alive")?.isHopByHop == true)
        #expect(KnownHeaderName("Content-Length")?.isHopByHop == false)
        #expect(KnownHeaderName("ETag")?.describesOriginBytes == true)
        #expect(KnownHeaderName("Content-Type")?.describesOriginBytes == false)
        #expect(KnownHeaderName.recorded.map { KnownHeaderName($0.name) } == KnownHeaderName.recorded.map(\.known))
        #expect(KnownHeaderName.recorded.allSatisfy { $0.known.fieldSlot != nil }, "ResponseFields notes every recorded name")
    }
}
