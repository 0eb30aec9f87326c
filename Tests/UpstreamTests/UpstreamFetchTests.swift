import Foundation
import Testing
import TestSupport
@testable import Upstream

@Suite struct UpstreamFetchTests {
    @Test func statusHeadersAndBodyArrive() async throws {
        try await withOrigin { origin, client in
            let body = Array("#EXTM3U\n#EXT-X-VERSION:3\n".utf8)
            origin.route("/a.m3u8", .bytes(status: 200, headers: [("Content-Type", "application/vnd.apple.mpegurl"), ("X-Custom", "v1")], body: body))
            let response = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/a.m3u8?token=1"))
            #expect(response.status == 200)
            #expect(response.httpVersion == "1.1")
            #expect(response.header("content-type") == "application/vnd.apple.mpegurl")
            #expect(response.header("X-CUSTOM") == "v1")
            #expect(response.header("Content-Length") == String(body.count))
            #expect(response.effectiveURL == origin.baseURL + "/a.m3u8?token=1")
            #expect(try await response.body.collect(upTo: 1 << 20) == body)
            #expect(origin.requestLog.map(\.uri) == ["/a.m3u8?token=1"])
        }
    }

    /// A body that comes in many pieces, some while the consumer already waits, is one buffer of
    /// exactly its bytes; one over the limit fails as too large.
    @Test func aBodyCollectedIntoOneBufferIsEveryByteInOrder() async throws {
        try await withOrigin { origin, client in
            origin.route("/slow.ts", .generated(size: 700_000, chunk: 50_000, delayBetweenChunks: .milliseconds(5)))
            let response = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/slow.ts"))
            let buffer = try await response.body.collectBuffer(upTo: 1 << 20)
            #expect(buffer.readableBytes == 700_000)
            #expect(Array(buffer.readableBytesView) == patternBytes(offset: 0, count: 700_000))
            let again = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/slow.ts"))
            await #expect(throws: UpstreamError.tooLarge(url: origin.baseURL + "/slow.ts", limit: 100_000)) {
                try await again.body.collectBuffer(upTo: 100_000)
            }
        }
    }

    @Test func nonSuccessStatusIsAResponseNotAnError() async throws {
        try await withOrigin { origin, client in
            let response = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/missing.ts"))
            #expect(response.status == 404)
            #expect(String(decoding: try await response.body.collect(upTo: 4096), as: UTF8.self) == "no route for /missing.ts\n")
        }
    }

    @Test func requestHeadersAreForwardedAsGiven() async throws {
        try await withOrigin { origin, client in
            origin.route("/s.ts", .bytes(body: [1, 2, 3]))
            let headers = [(name: "User-Agent", value: "Player/1.0"), (name: "Accept", value: "video/*"), (name: "Cookie", value: "a=b"), (name: "X-Empty", value: "")]
            let response = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/s.ts", headers: headers))
            _ = try await response.body.collect(upTo: 100)
            let logged = try #require(origin.requestLog.first)
            #expect(logged.header("User-Agent") == "Player/1.0")
            #expect(logged.headers.filter { $0.name.lowercased() == "accept" }.map(\.value) == ["video/*"])
            #expect(logged.header("Cookie") == "a=b")
            #expect(logged.header("X-Empty") == "")
            #expect(logged.header("Expect") == nil)

            let second = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/s.ts"))
            _ = try await second.body.collect(upTo: 100)
            #expect(origin.requestLog.last?.header("User-Agent") == "hlschaos")
        }
    }

    @Test func connectionHeadersOfTheClientAreNotForwarded() async throws {
        try await withOrigin { origin, client in
            origin.route("/s.ts", .bytes(body: [9, 8, 7]))
            let headers = [
                (name: "Host", value: "proxy.example:8080"), (name: "Transfer-Encoding", value: "chunked"),
                (name: "Connection", value: "keep-alive, X-Hop"), (name: "Content-Length", value: "12"),
            ]
            let response = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/s.ts", headers: headers))
            #expect(try await response.body.collect(upTo: 100) == [9, 8, 7])
            let logged = try #require(origin.requestLog.first)
            #expect(logged.header("Host") == "127.0.0.1:\(origin.port)")
            #expect(logged.header("Transfer-Encoding") == nil)
            #expect(logged.header("Content-Length") == nil)
            #expect(logged.header("Connection") == nil)
            #expect(logged.header("Accept") == nil)
        }
    }

    @Test func decodeContentKeepsContentLengthOfAnUnencodedBody() async throws {
        try await withOrigin { origin, client in
            origin.route("/plain.m3u8", .bytes(body: Array("#EXTM3U\n".utf8)))
            let response = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/plain.m3u8", decodeContent: true))
            #expect(response.header("Content-Length") == "8")
            #expect(try await response.body.collect(upTo: 100) == Array("#EXTM3U\n".utf8))
        }
    }

    @Test func headerWithLineBreakIsRejectedBeforeSending() async throws {
        try await withOrigin { origin, client in
            let request = UpstreamRequest(url: origin.baseURL + "/x", headers: [(name: "X-Bad", value: "a\r\nInjected: 1")])
            let error = await upstreamError { () async throws(UpstreamError) in try await client.fetch(request) }
            guard case let .setup(message) = error else {
                Issue.record("expected .setup, got \(String(describing: error))")
                return
            }
            #expect(message.contains("X-Bad"))
            #expect(origin.requestLog.isEmpty)
        }
    }

    @Test func directoryRouteServesFilesWithRanges() async throws {
        try await withTemporaryFolder("upstream") { scratch in
            let directory = scratch.path
            try FileManager.default.createDirectory(atPath: directory + "/v1", withIntermediateDirectories: true)
            let segment = patternBytes(offset: 7, count: 5000)
            try Data(segment).write(to: URL(fileURLWithPath: directory + "/v1/seg1.ts"))
            try await withOrigin { origin, client in
                origin.routeDirectory("/media/", directory: directory)
                let full = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/media/v1/seg1.ts"))
                #expect(full.status == 200)
                #expect(full.header("Content-Type") == "video/mp2t")
                #expect(try await full.body.collect(upTo: 10_000) == segment)
                let part = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/media/v1/seg1.ts", headers: [(name: "Range", value: "bytes=-100")]))
                #expect(part.status == 206)
                #expect(try await part.body.collect(upTo: 10_000) == Array(segment.suffix(100)))
                let escape = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/media/../etc/passwd"))
                #expect(escape.status == 404)
                let missing = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/media/v1/nope.ts"))
                #expect(missing.status == 404)
            }
        }
    }

    @Test func headReturnsHeadersWithoutBody() async throws {
        try await withOrigin { origin, client in
            origin.route("/seg.ts", .generated(size: 100_000))
            let response = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/seg.ts", method: .head))
            #expect(response.status == 200)
            #expect(response.header("Content-Length") == "100000")
            #expect(try await response.body.collect(upTo: 1 << 20).isEmpty)
            #expect(origin.requestLog.first?.method == "HEAD")
        }
    }

    @Test func rangeRequestGets206WithTheSlice() async throws {
        try await withOrigin { origin, client in
            origin.route("/seg.ts", .generated(size: 10_000))
            let response = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/seg.ts", headers: [(name: "Range", value: "bytes=1000-1999")]))
            #expect(response.status == 206)
            #expect(response.header("Content-Range") == "bytes 1000-1999/10000")
            #expect(response.header("Content-Length") == "1000")
            #expect(try await response.body.collect(upTo: 1 << 20) == patternBytes(offset: 1000, count: 1000))

            let unsatisfiable = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/seg.ts", headers: [(name: "Range", value: "bytes=20000-")]))
            #expect(unsatisfiable.status == 416)
            #expect(unsatisfiable.header("Content-Range") == "bytes */10000")
        }
    }

    @Test func redirectIsFollowedOnlyWhenAsked() async throws {
        try await withOrigin { origin, client in
            origin.route("/old/master.m3u8", .redirect(status: 302, location: "/new/master.m3u8"))
            origin.route("/new/master.m3u8", .bytes(body: Array("#EXTM3U\n".utf8)))

            let followed = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/old/master.m3u8", followRedirects: true))
            #expect(followed.status == 200)
            #expect(followed.effectiveURL == origin.baseURL + "/new/master.m3u8")
            #expect(followed.header("Location") == nil)
            #expect(try await followed.body.collect(upTo: 1024) == Array("#EXTM3U\n".utf8))

            let notFollowed = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/old/master.m3u8"))
            #expect(notFollowed.status == 302)
            #expect(notFollowed.header("Location") == "/new/master.m3u8")
            #expect(notFollowed.effectiveURL == origin.baseURL + "/old/master.m3u8")
            #expect(try await notFollowed.body.collect(upTo: 1024).isEmpty)
            #expect(origin.requestLog.map(\.path) == ["/old/master.m3u8", "/new/master.m3u8", "/old/master.m3u8"])
        }
    }

    @Test func redirectBodyIsNotMistakenForTheFinalResponse() async throws {
        try await withOrigin { origin, client in
            origin.route("/a.m3u8", .bytes(status: 301, headers: [("Location", "/b.m3u8"), ("Content-Type", "text/html")], body: Array("<html>moved</html>".utf8)))
            origin.route("/b.m3u8", .delayedHeaders(.milliseconds(200), then: .bytes(body: Array("#EXTM3U\n".utf8))))
            let response = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/a.m3u8", followRedirects: true))
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == nil)
            #expect(response.effectiveURL == origin.baseURL + "/b.m3u8")
            #expect(try await response.body.collect(upTo: 1024) == Array("#EXTM3U\n".utf8))
        }
    }

    @Test func gzipPlaylistIsDecodedWhenAsked() async throws {
        try await withOrigin { origin, client in
            let playlist = Array(String(repeating: "#EXTINF:2.0,\nsegment.ts\n", count: 500).utf8)
            origin.route("/p.m3u8", .gzip(body: playlist, contentType: "application/vnd.apple.mpegurl"))

            let decoded = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/p.m3u8", decodeContent: true))
            #expect(decoded.header("Content-Encoding") == nil)
            #expect(decoded.header("Content-Length") == nil)
            #expect(try await decoded.body.collect(upTo: 1 << 20) == playlist)
            #expect(origin.requestLog.last?.header("Accept-Encoding")?.contains("gzip") == true)

            // Without decoding, an Accept-Encoding from the player passes through and so does the encoded body.
            let raw = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/p.m3u8", headers: [(name: "Accept-Encoding", value: "gzip")]))
            #expect(raw.header("Content-Encoding") == "gzip")
            let rawBody = try await raw.body.collect(upTo: 1 << 20)
            #expect(rawBody.prefix(2) == [0x1f, 0x8b])
            #expect(raw.header("Content-Length") == String(rawBody.count))
        }
    }

    @Test func aReusedEasyHandleCarriesNothingOverFromTheLastTransfer() async throws {
        try await withOrigin { origin, client in
            origin.route("/old.m3u8", .redirect(status: 302, location: "/seg.ts"))
            origin.route("/seg.ts", .generated(size: 50_000))
            let first = try await client.fetch(UpstreamRequest(
                url: origin.baseURL + "/old.m3u8", method: .head, headers: [(name: "X-Only-First", value: "1")],
                followRedirects: true, decodeContent: true))
            #expect(first.status == 200)
            #expect(try await first.body.collect(upTo: 1 << 20).isEmpty)

            let second = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/old.m3u8"))
            #expect(second.status == 302)
            #expect(try await second.body.collect(upTo: 1 << 20).isEmpty)
            let third = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/seg.ts"))
            #expect(try await readPattern(third.body) == (50_000, true))

            #expect(client.easyHandlesCreated == 1)
            let plain = origin.requestLog.suffix(2)
            #expect(plain.map(\.method) == ["GET", "GET"])
            #expect(plain.allSatisfy { $0.header("X-Only-First") == nil && $0.header("Accept-Encoding") == nil })
        }
    }

    @Test func secondRequestReusesTheConnection() async throws {
        try await withOrigin { origin, client in
            origin.route("/seg.ts", .generated(size: 200_000))
            let first = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/seg.ts"))
            #expect(first.reusedConnection == false)
            #expect(try await readPattern(first.body) == (200_000, true))
            let second = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/seg.ts"))
            #expect(second.reusedConnection == true)
            #expect(try await readPattern(second.body) == (200_000, true))
            #expect(origin.connectionsAccepted == 1)
            let ports = Set(origin.requestLog.map(\.remotePort))
            #expect(ports.count == 1)
        }
    }

    /// Transfers that finish one by one leave idle connections behind; all of them must stay for
    /// the next burst. (curl's default cache shrinks with the number of transfers still running, so
    /// the last one to finish used to close a connection.)
    @Test func aBurstAfterABurstOpensNoNewConnections() async throws {
        try await withOrigin { origin, client in
            let burst = 8
            for index in 0..<burst {
                origin.route("/seg\(index).ts", .delayedHeaders(.milliseconds(100 + 60 * index), then: .generated(size: 10_000)))
            }
            for round in 1...3 {
                let intact = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for index in 0..<burst {
                        group.addTask {
                            let response = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/seg\(index).ts"))
                            return try await readPattern(response.body) == (10_000, true)
                        }
                    }
                    return try await group.reduce(true) { $0 && $1 }
                }
                #expect(intact, "round \(round)")
            }
            #expect(origin.connectionsAccepted == burst)
        }
    }
}
