import Foundation
import Testing
import TestSupport

/// The proxy with no rule: bytes, statuses and headers as the origin sent them.
@Suite struct PassthroughTests {
    @Test func segmentBytesStatusAndEndToEndHeadersPassThrough() async throws {
        try await TestOrigin.with { origin in
            let body = patternBytes(offset: 0, count: 1_000_003)
            origin.route("/media/seg1.ts", .bytes(headers: [("Content-Type", "video/mp2t"), ("Cache-Control", "max-age=60"), ("X-Origin", "yes")], body: body))
            try await ProxyHarness.with(upstreamURL: origin.baseURL) { proxy in

                let response = try await proxy.get("/media/seg1.ts", headers: [("User-Agent", "TestPlayer/1.0"), ("Cookie", "a=b"), ("Authorization", "Bearer t")])
                #expect(response.status == 200)
                #expect(response.ending == .complete)
                #expect(response.body == body)
                #expect(response.header("content-length") == "1000003")
                #expect(response.header("content-type") == "video/mp2t")
                #expect(response.header("cache-control") == "max-age=60")
                #expect(response.header("x-origin") == "yes")

                let seen = try #require(origin.requestLog.last)
                #expect(seen.header("user-agent") == "TestPlayer/1.0")
                #expect(seen.header("cookie") == "a=b")
                #expect(seen.header("authorization") == "Bearer t")
            }
        }
    }

    /// NIO traps on a non-ASCII header name and refuses values with line breaks: such origin
    /// headers are dropped (as nginx's ignore_invalid_headers does), the rest of the answer passes.
    @Test func malformedOriginHeadersAreDroppedNotFatal() async throws {
        try await TestOrigin.with { origin in
            let head = "HTTP/1.1 200 OK\r\nContent-Type: video/mp2t\r\nX-Caf\u{e9}: 1\r\nBad Name: 2\r\nX-Split: a\rb\r\nX-Good: 3\r\nContent-Length: 3\r\nConnection: close\r\n\r\n"
            origin.route("/odd.ts", .raw(Array(head.utf8) + [7, 8, 9]))
            origin.route("/fine.ts", .bytes(body: [1]))
            try await ProxyHarness.with(upstreamURL: origin.baseURL) { proxy in
                let response = try await proxy.get("/odd.ts")
                #expect(response.status == 200)
                #expect(response.body == [7, 8, 9])
                #expect(response.header("x-good") == "3")
                #expect(response.header("x-split") == nil)
                #expect(response.header("bad name") == nil)
                #expect(await proxy.status("/fine.ts") == 200)
            }
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        try await TestOrigin.with { origin in
            origin.route("/slow.ts", .delayedHeaders(.milliseconds(200), then: .bytes(body: Array(repeating: 1, count: 70_000))))
            origin.route("/fast.ts", .bytes(body: [2, 2]))
            origin.route("/gone.ts", .bytes(status: 404, body: Array("no\n".utf8)))
            try await ProxyHarness.with(upstreamURL: origin.baseURL) { proxy in
                let port = proxy.server.port
                let responses = try await RawHTTP.run {
                    let connection = try RawHTTPConnection(port: port)
                    defer { connection.close() }
                    return try connection.pipeline(["/slow.ts", "/fast.ts", "/gone.ts", "/fast.ts"])
                }
                #expect(responses.map(\.status) == [200, 200, 404, 200])
                #expect(responses.map(\.body.count) == [70_000, 2, 3, 2])
                #expect(responses.allSatisfy { $0.ending == .complete })
            }
        }
    }

    @Test func hopByHopRequestHeadersAreDropped() async throws {
        try await TestOrigin.with { origin in
            origin.route("/a.ts", .bytes(body: [1, 2, 3]))
            try await ProxyHarness.with(upstreamURL: origin.baseURL) { proxy in
                _ = try await proxy.get("/a.ts", headers: [("Connection", "keep-alive, X-Private"), ("X-Private", "secret"), ("TE", "trailers"), ("Proxy-Authorization", "x")])
                let seen = try #require(origin.requestLog.last)
                #expect(seen.header("x-private") == nil)
                #expect(seen.header("te") == nil)
                #expect(seen.header("proxy-authorization") == nil)
            }
        }
    }

    @Test func rangeRequestsAreForwardedAnd206PassesThrough() async throws {
        try await TestOrigin.with { origin in
            origin.route("/big.mp4", .generated(size: 2_000_000))
            try await ProxyHarness.with(upstreamURL: origin.baseURL) { proxy in
                let response = try await proxy.get("/big.mp4", headers: [("Range", "bytes=1000-1999")])
                #expect(response.status == 206)
                #expect(response.header("content-range") == "bytes 1000-1999/2000000")
                #expect(response.body == patternBytes(offset: 1000, count: 1000))
                #expect(origin.requestLog.last?.header("range") == "bytes=1000-1999")
            }
        }
    }

    @Test func headAnswersTheOriginsHeadersWithoutBody() async throws {
        try await TestOrigin.with { origin in
            origin.route("/seg.ts", .generated(size: 123_456))
            try await ProxyHarness.with(upstreamURL: origin.baseURL) { proxy in
                let response = try await RawHTTP.run { [port = proxy.port] in
                    let connection = try RawHTTPConnection(port: port)
                    let head = try connection.request("HEAD", "/seg.ts")
                    // The same connection must still work: no stray body bytes were sent after the HEAD answer.
                    let get = try connection.request("GET", "/seg.ts")
                    return (head, get)
                }
                #expect(response.0.status == 200)
                #expect(response.0.header("content-length") == "123456")
                #expect(response.0.body.isEmpty)
                #expect(response.1.body == patternBytes(offset: 0, count: 123_456))
                #expect(origin.requestLog.first?.method == "HEAD")
            }
        }
    }

    @Test func originConnectionsAreReused() async throws {
        try await TestOrigin.with { origin in
            origin.route("/s.ts", .bytes(body: Array(repeating: 7, count: 10_000)))
            try await ProxyHarness.with(upstreamURL: origin.baseURL) { proxy in
                for _ in 0..<10 {
                    let response = try await proxy.get("/s.ts")
                    #expect(response.body.count == 10_000)
                }
                #expect(origin.requestLog.count == 10)
                #expect(origin.connectionsAccepted == 1)
            }
        }
    }

    @Test func clientThatDisconnectsCancelsTheUpstreamTransfer() async throws {
        try await TestOrigin.with { origin in
            // 200 MB at 64 KB every 10 ms: the origin would need half a minute to finish.
            origin.route("/huge.ts", .generated(size: 200_000_000, chunk: 64 * 1024, delayBetweenChunks: .milliseconds(10)))
            try await ProxyHarness.with(upstreamURL: origin.baseURL) { proxy in
                let partial = try await RawHTTP.run { [port = proxy.port] in
                    let connection = try RawHTTPConnection(port: port)
                    let response = try connection.request("GET", "/huge.ts", maxBodyBytes: 300_000)
                    connection.close()
                    return response
                }
                #expect(partial.status == 200)
                #expect(partial.body.count == 300_000)
                let aborted = await origin.waitUntil(timeout: .seconds(10)) { $0.responsesAborted == 1 }
                #expect(aborted, "the origin transfer should be cancelled when the client goes away")
                #expect(origin.responsesCompleted == 0)
            }
        }
    }

    @Test func originDownAnswers502NamingTheFailure() async throws {
        let refusing = try RefusingPort()
        let closedPort = refusing.port
        try await ProxyHarness.with(upstreamURL: "http://127.0.0.1:\(closedPort)") { proxy in
            let response = try await proxy.get("/seg.ts")
            #expect(response.status == 502)
            #expect(response.text.contains("127.0.0.1:\(closedPort)"))
            #expect(response.text.split(separator: "\n").count == 1)
        }
        withExtendedLifetime(refusing) {}
    }

    @Test func originTooSlowAnswers504() async throws {
        try await TestOrigin.with { origin in
            origin.route("/slow.ts", .delayedHeaders(.seconds(5), then: .bytes(body: [1])))
            try await ProxyHarness.with(upstreamURL: origin.baseURL, configure: {
                $0.upstream.firstByteTimeout = .seconds(1)
            }) { proxy in
                let response = try await proxy.get("/slow.ts")
                #expect(response.status == 504)
                #expect(response.secondsToHead >= 0.9)
                #expect(response.text.contains("slow.ts"))
            }
        }
    }

    @Test func foreignHostIsRefusedWith403() async throws {
        try await TestOrigin.with { origin in
            try await ProxyHarness.with(upstreamURL: origin.baseURL) { proxy in
                let response = try await proxy.get("/~seg.v0.n1/http/example.org/x.ts")
                #expect(response.status == 403)
                #expect(response.text.contains("example.org"))
                #expect(response.text.contains("not an open relay"))
            }
        }
    }

    @Test func aFullAllowlistSaysSoInItsRefusal() async throws {
        try await TestOrigin.with { origin in
            let cdn = "localhost:\(origin.port)"  // another authority for the same server
            origin.route("/master.m3u8", .bytes(headers: [("Content-Type", "application/vnd.apple.mpegurl")], body: Array(
                "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000\nhttp://\(cdn)/v0.m3u8\n".utf8)))
            try await ProxyHarness.with(upstreamURL: origin.baseURL, configure: { $0.memory.maxLearnedHosts = 0 }) { proxy in
                let master = try await proxy.get("/master.m3u8")
                #expect(master.status == 200)
                let variant = try #require(master.text.split(separator: "\n").first { $0.contains(cdn) })
                let refused = try await proxy.get(String(variant))
                #expect(refused.status == 403)
                #expect(refused.text.contains("maxLearnedHosts"), "\(refused.text)")
            }
        }
    }

    @Test func badRequestsGetClearErrors() async throws {
        try await TestOrigin.with { origin in
            try await ProxyHarness.with(upstreamURL: origin.baseURL) { proxy in
                let post = try await proxy.get("/x.ts", method: "POST")
                #expect(post.status == 405)
                #expect(post.header("allow") == "GET, HEAD")
                let session = try await proxy.get("/s/bad%20id/x.ts")
                #expect(session.status == 400)
                #expect(session.text.contains("session"))
                let damaged = try await proxy.get("/~seg.vX/http/127.0.0.1/x.ts")
                #expect(damaged.status == 400)
                let noOrigin = try await proxy.get("/@nope/x.ts")
                #expect(noOrigin.status == 404)
                #expect(noOrigin.text.contains("nope"))
                #expect(origin.requestLog.isEmpty)
            }
        }
    }
}

extension PassthroughTests {
    @Test func absoluteURIsOnOtherHostsComeBackThroughTheProxyAndOnlyThose() async throws {
        try await TestOrigin.with { origin in
            try await TestOrigin.with { cdn in
                try await TestOrigin.with { stranger in
                    cdn.route("/media/seg0.ts", .bytes(body: [9, 9, 9]))
                    stranger.route("/media/seg0.ts", .bytes(body: [6, 6, 6]))
                    origin.route("/index.m3u8", .bytes(body: Array("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\n\(cdn.baseURL)/media/seg0.ts?token=a%2Fb\n".utf8)))
                    try await ProxyHarness.with(upstreamURL: origin.baseURL) { proxy in
                        let playlist = try await proxy.get("/index.m3u8")
                        let uri = try #require(playlist.text.split(separator: "\n").last)
                        #expect(uri == "/~seg.n0/http/127.0.0.1:\(cdn.port)/media/seg0.ts?token=a%2Fb")
                        let segment = try await proxy.get(String(uri))
                        #expect(segment.body == [9, 9, 9])
                        #expect(cdn.requestLog.last?.uri == "/media/seg0.ts?token=a%2Fb")
                        let refused = try await proxy.get("/~seg.n0/http/127.0.0.1:\(stranger.port)/media/seg0.ts")
                        #expect(refused.status == 403)
                        #expect(stranger.requestLog.isEmpty)
                    }
                }
            }
        }
    }
}
