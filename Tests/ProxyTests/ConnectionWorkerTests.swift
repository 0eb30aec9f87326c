import Foundation
import Proxy
import Testing
import TestSupport

/// A connection's requests are answered one after another by one task (the connection's worker):
/// what a client sees of it is that every request on a keep-alive connection is answered, in
/// order, however the requests come (one at a time, after a pause, pipelined), and that a
/// connection's end, or a shutdown, ends its worker.
@Suite struct ConnectionWorkerTests {
    @Test func requestsOnOneConnectionAreAnsweredWhateverTheirPace() async throws {
        try await TestOrigin.with { origin in
            origin.route("/a.ts", .bytes(body: Array(repeating: 1, count: 70_000)))
            origin.route("/b.ts", .bytes(body: [2, 2, 2]))
            origin.route("/gone.ts", .bytes(status: 404, body: Array("no\n".utf8)))
            try await ProxyHarness.with(upstreamURL: origin.baseURL) { proxy in
                let port = proxy.port
                let (single, pipelined) = try await RawHTTP.run {
                    let connection = try RawHTTPConnection(port: port)
                    defer { connection.close() }
                    var single: [RawHTTPConnection.Response] = []
                    single.append(try connection.request("GET", "/a.ts"))
                    // The worker waits between requests: the next one finds it after a pause.
                    Thread.sleep(forTimeInterval: 0.3)
                    single.append(try connection.request("GET", "/b.ts"))
                    single.append(try connection.request("GET", "/gone.ts"))
                    let pipelined = try connection.pipeline(["/b.ts", "/a.ts", "/gone.ts", "/b.ts"])
                    single.append(try connection.request("GET", "/a.ts"))
                    return (single, pipelined)
                }
                #expect(single.map(\.status) == [200, 200, 404, 200])
                #expect(single.map(\.body.count) == [70_000, 3, 3, 70_000])
                #expect(pipelined.map(\.status) == [200, 200, 404, 200])
                #expect(pipelined.map(\.body.count) == [3, 70_000, 3, 3])
                #expect((single + pipelined).allSatisfy { $0.ending == .complete })
            }
        }
    }

    @Test func aClientLeavingAnIdleConnectionEndsItAndAShutdownEndsTheRest() async throws {
        try await TestOrigin.with { origin in
            origin.route("/b.ts", .bytes(body: [2, 2, 2]))
            try await ProxyHarness.with(upstreamURL: origin.baseURL) { proxy in
                let port = proxy.port
                let left = try RawHTTPConnection(port: port)
                let kept = try RawHTTPConnection(port: port, readTimeout: 10)
                defer { kept.close() }
                let statuses = try await RawHTTP.run { [left, kept] in
                    [try left.request("GET", "/b.ts").status, try kept.request("GET", "/b.ts").status]
                }
                #expect(statuses == [200, 200])
                #expect(proxy.server.connectionCount == 2)
                left.close()
                #expect(await eventually { proxy.server.connectionCount == 1 }, "the connection the client left is gone")
                // The other connection's worker is waiting for a request: a shutdown closes it.
                let started = ContinuousClock.now
                await proxy.stop()
                #expect(ContinuousClock.now - started < .seconds(5), "the shutdown waited for an idle connection")
                #expect(proxy.server.connectionCount == 0)
                let ending = try await RawHTTP.run { [kept] in kept.readUntilClosed().ending }
                #expect(ending == .complete)
            }
        }
    }

    /// Each HTTP/2 stream has a handler and a worker of its own: both end with the stream, so the
    /// proxy holds nothing once the connection is gone.
    @Test func everyHTTP2StreamEndsItsWorker() async throws {
        try await ForwardHarness.with(configure: { $0.https = .init(port: 0) }) { forward in
            let port = try #require(forward.proxy.server.httpsPort)
            let url = "https://localhost:\(port)/s/h2w/@plain/vod/ts/master.m3u8"
            let transfers = try await HTTP2FaultEndingTests.curl(forward, Array(repeating: url, count: 6))
            #expect(transfers.map(\.status) == Array(repeating: 200, count: 6))
            #expect(transfers.allSatisfy { $0.version == "2" && $0.bytes > 0 })
            #expect(transfers.dropFirst().allSatisfy { $0.connects == 0 }, "one connection, six streams")
            #expect(
                await eventually { forward.proxy.server.connectionCount == 0 },
                "a stream's handler, and its worker, outlived the stream")
        }
    }
}
