import Foundation
@testable import HAR
import Records
import Testing

@Suite struct HARFieldsTests {
    @Test func urlsAreTheBaseFollowedByTheTarget() {
        let base = "http://192.168.1.20:8080"
        #expect(HARFields.absoluteURL(path: "/s/tv1/vod/ts/master.m3u8", baseURL: base) == "http://192.168.1.20:8080/s/tv1/vod/ts/master.m3u8")
        #expect(HARFields.absoluteURL(path: "/a?b=c", baseURL: base + "/") == "http://192.168.1.20:8080/a?b=c")
        #expect(HARFields.absoluteURL(path: "/a", baseURL: "localhost:8080") == "http://localhost:8080/a")
        #expect(HARFields.absoluteURL(path: "/a#frag", baseURL: base) == "http://192.168.1.20:8080/a")
        #expect(HARFields.absoluteURL(path: "*", baseURL: base) == "http://192.168.1.20:8080/*")
        #expect(HARFields.absoluteURL(path: "/[x]{y}|\"", baseURL: "http://[::1]:8080") == "http://[::1]:8080/%5Bx%5D%7By%7D%7C%22")
        // Absolute-form targets (a client that thinks hlschaos is a forward proxy) are kept.
        #expect(HARFields.absoluteURL(path: "http://origin.example/a b", baseURL: base) == "http://origin.example/a%20b")
    }

    @Test func queryParametersAreSplitAndDecoded() {
        let parameters = HARFields.queryString(path: "/x.ts?token=a%2Fb&flag&=v&&k=1=2&plus=a+b#frag")
        #expect(parameters.map(\.name) == ["token", "flag", "", "k", "plus"])
        #expect(parameters.map(\.value) == ["a/b", "", "v", "1=2", "a+b"])
        #expect(HARFields.queryString(path: "/x.ts").isEmpty)
        #expect(HARFields.queryString(path: "/x.ts?").isEmpty)
        // Escapes that are not UTF-8 stay as written.
        #expect(HARFields.queryString(path: "/?a=%FF%FE").map(\.value) == ["%FF%FE"])
    }

    @Test func headersAreFoundWhateverTheirCase() {
        let headers: [RequestRecord.Header] = [.init("Content-Type", "video/mp2t"), .init("content-type", "ignored")]
        #expect(HARFields.header("content-type", in: headers) == "video/mp2t")
        #expect(HARFields.header("location", in: headers) == nil)
    }

    @Test func reasonPhrasesAreNIOs() {
        #expect(HARFields.reasonPhrase(200) == "OK")
        #expect(HARFields.reasonPhrase(503) == "Service Unavailable")
        #expect(HARFields.reasonPhrase(413) == "Payload Too Large")
        #expect(HARFields.reasonPhrase(0) == "")
        #expect(HARFields.reasonPhrase(599) == "")
    }
}
