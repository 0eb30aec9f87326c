import NIOHTTP1
import Testing
import Upstream
@testable import Proxy

@Suite struct HeaderPolicyTests {
    @Test func hopByHopAndConnectionNamedHeadersStayOnTheirSide() {
        let upstream: [(name: String, value: String)] = [
            ("Content-Type", "video/mp2t"), ("Content-Length", "65536"), ("Connection", " X-Trace ,Keep-Alive"),
            ("x-trace", "abc"), ("KEEP-ALIVE", "timeout=5"), ("Transfer-Encoding", "chunked"), ("ETag", "\"1\""),
        ]
        let headers = HeaderPolicy.clientResponseHeaders(from: UpstreamHeaders(upstream), isPlaylist: false).fields.list
        #expect(headers.map(\.name) == ["Content-Type", "Content-Length", "ETag"])
    }

    @Test func connectionOptionsNameHeadersWhateverTheirSpacingAndCase() {
        let upstream: [(name: String, value: String)] = [
            ("Connection", ",close,\tX-A , ,KEEP-ALIVE,"), ("connection", "x-b"), ("X-A", "1"), ("x-b", "2"), ("X-C", "3"),
            ("close", "a header named as an option goes too"),
        ]
        let headers = HeaderPolicy.clientResponseHeaders(from: UpstreamHeaders(upstream), isPlaylist: false).fields.list
        #expect(headers.map(\.name) == ["X-C"])
    }

    @Test func aRewrittenPlaylistDropsWhatDescribedTheOriginsBytes() {
        let upstream: [(name: String, value: String)] = [
            ("Content-Type", "application/vnd.apple.mpegurl"), ("content-length", "100"), ("Content-Encoding", "gzip"),
            ("ETag", "\"1\""), ("Accept-Ranges", "bytes"), ("Cache-Control", "max-age=1"),
        ]
        let headers = HeaderPolicy.clientResponseHeaders(from: UpstreamHeaders(upstream), isPlaylist: true).fields.list
        #expect(headers.map(\.name) == ["Content-Type", "Cache-Control"])
    }

    @Test func headersThatAreNotValidHTTPAreDroppedAndNamed() {
        let upstream: [(name: String, value: String)] = [
            ("X-Caf\u{e9}", "1"), ("Bad Name", "2"), ("X-Split", "a\rb"), ("", "4"), ("X-Good", "caf\u{e9}"),
            ("X-Bell", "a\u{7}b"), ("X-Tab", "a\tb"),
        ]
        let (headers, _, invalid) = HeaderPolicy.clientResponseHeaders(from: UpstreamHeaders(upstream), isPlaylist: false)
        #expect(headers.list.map(\.name) == ["X-Good", "X-Tab"])
        #expect(invalid == ["X-Caf\u{e9}", "Bad Name", "X-Split", "", "X-Bell"], "NIO refuses to write a control character but tab")
    }

    @Test func oneContentLengthIsKeptOnlyWhenEveryLengthAgrees() {
        let repeated: [(name: String, value: String)] = [("Content-Length", "10"), ("X-A", "1"), ("content-length", "10")]
        let (kept, length, noProblem) = HeaderPolicy.clientResponseHeaders(from: UpstreamHeaders(repeated), isPlaylist: false)
        #expect(kept.list.map { "\($0.name): \($0.value)" } == ["Content-Length: 10", "X-A: 1"])
        #expect(length == 10)
        #expect(noProblem.isEmpty)

        let differing: [(name: String, value: String)] = [("X-A", "1"), ("Content-Length", "10"), ("X-B", "2"), ("Content-Length", "12")]
        let (framedByChunks, noLength, named) = HeaderPolicy.clientResponseHeaders(from: UpstreamHeaders(differing), isPlaylist: false)
        #expect(noLength == nil)
        #expect(framedByChunks.list.map(\.name) == ["X-A", "X-B"], "no length the client could frame by: the body goes out chunked")
        #expect(named == ["Content-Length: 10", "Content-Length: 12"])

        let notANumber: [(name: String, value: String)] = [("Content-Length", "-5"), ("X-A", "1")]
        let (withoutLength, _, alsoNamed) = HeaderPolicy.clientResponseHeaders(from: UpstreamHeaders(notANumber), isPlaylist: false)
        #expect(withoutLength.list.map(\.name) == ["X-A"])
        #expect(alsoNamed == ["Content-Length: -5"])
    }

    @Test func requestHeadersForwardedUpstream() {
        let client: HTTPHeaders = [
            "Host": "proxy:8080", "User-Agent": "AppleCoreMedia/1.0", "Range": "bytes=0-99", "Cookie": "a=b",
            "If-None-Match": "\"1\"", "Accept-Encoding": "gzip", "Connection": "keep-alive, X-Drop", "x-drop": "1",
            "Expect": "100-continue", "TE": "trailers",
        ]
        let segment = HeaderPolicy.upstreamRequestHeaders(from: client, isPlaylist: false).map(\.name)
        #expect(segment == ["User-Agent", "Range", "Cookie", "If-None-Match", "Accept-Encoding"])
        let playlist = HeaderPolicy.upstreamRequestHeaders(from: client, isPlaylist: true).map(\.name)
        #expect(playlist == ["User-Agent", "Cookie"])
    }
}
