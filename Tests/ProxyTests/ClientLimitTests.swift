import Foundation
import Proxy
import Testing
import TestSupport

/// The client-side timeouts and limits: what a scanner, a stuck client or a crowd gets, and that a
/// faulted `hang` is not cut by any of them.
@Suite struct ClientLimitTests {
    static func withProxy(
        rules: [String] = [], _ configure: @escaping (inout ProxyConfiguration) -> Void,
        _ body: (ProxyHarness, TestOrigin) async throws -> Void
    ) async throws {
        try await TestOrigin.with { origin in
            HLSFixture.install(on: origin)
            try await ProxyHarness.with(upstreamURL: origin.baseURL, rules: rules, configure: configure) { proxy in
                try await body(proxy, origin)
            }
        }
    }

    @Test func halfSentHeadsAreAnswered408AndClosed() async throws {
        try await Self.withProxy({ $0.clients.requestHeadTimeout = 1 }) { proxy, _ in
            let port = proxy.port
            let endings = try await RawHTTP.run {
                let connections = try (0..<50).map { _ in try RawHTTPConnection(port: port, readTimeout: 8) }
                for connection in connections { connection.sendRaw(Array("GET /v0/seg1.ts HTTP/1.1\r\nHost: a\r\n".utf8)) }
                return connections.map { $0.readUntilClosed() }
            }
            for (bytes, ending) in endings {
                #expect(ending == .complete, "closed by the proxy, not left open")
                let text = String(decoding: bytes, as: UTF8.self)
                #expect(text.hasPrefix("HTTP/1.1 408 "), "\(text.prefix(80))")
                #expect(text.contains("requestHeadTimeout"))
            }
            #expect(await eventually { proxy.server.connectionCount == 0 })
        }
    }

    @Test func idleKeepAliveConnectionsAreClosed() async throws {
        try await Self.withProxy({ $0.clients.keepAliveTimeout = 1 }) { proxy, _ in
            let port = proxy.port
            let (status, ending) = try await RawHTTP.run {
                // The close comes after 1 s; the read waits 30 s, as a test process starved in the
                // unit phase's start-up may need.
                let connection = try RawHTTPConnection(port: port, readTimeout: 30)
                let response = try connection.request("GET", "/v0/seg1.ts")
                return (response.status, connection.readUntilClosed().ending)
            }
            #expect(status == 200)
            #expect(ending == .complete, "the idle connection is closed with a FIN")
        }
    }

    @Test func aFaultedHangOutlastsEveryClientTimeout() async throws {
        let hang = WireFaultTests.scenario(#"{"id": "h", "match": {"kind": "segment"}, "action": {"hang": true}}"#)
        try await Self.withProxy(rules: [hang], {
            $0.clients.requestHeadTimeout = 0.5
            $0.clients.keepAliveTimeout = 0.5
        }) { proxy, _ in
            let port = proxy.port
            let (bytes, ending) = try await RawHTTP.run {
                let connection = try RawHTTPConnection(port: port, readTimeout: 3)
                connection.sendRaw(Array("GET /v0/seg1.ts HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
                return connection.readUntilClosed()
            }
            #expect(ending == .timedOut, "still hanging after 3 s, six times the timeouts")
            #expect(bytes.isEmpty)
        }
    }

    @Test func connectionsBeyondTheLimitAreRefused() async throws {
        try await Self.withProxy({ $0.clients.maxConnections = 5 }) { proxy, _ in
            let port = proxy.port
            let (open, statuses, refused) = try await RawHTTP.run {
                let open = try (0..<5).map { _ in try RawHTTPConnection(port: port, readTimeout: 5) }
                let statuses = try open.map { try $0.request("GET", "/v0/seg1.ts").status }
                let sixth = try RawHTTPConnection(port: port, readTimeout: 5)
                sixth.sendRaw(Array("GET /v0/seg1.ts HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
                return (open, statuses, sixth.readUntilClosed())
            }
            defer { open.forEach { $0.close() } }
            #expect(statuses == [200, 200, 200, 200, 200])
            #expect(refused.bytes.isEmpty)
            #expect(refused.ending != .timedOut, "the sixth connection is closed at once")
            open[0].close()
            // The proxy frees the slot when it notices the close.
            let freed = await eventually(interval: .milliseconds(200)) {
                (try? await RawHTTP.get(port: port, "/v0/seg1.ts", readTimeout: 5).status) == 200
            }
            #expect(freed, "a freed slot is usable again")
            #expect(proxy.server.refusedConnectionCount >= 1)
        }
    }

    @Test func oversizedHeadsGet431() async throws {
        try await Self.withProxy({ $0.clients.maxRequestHeadBytes = 8192 }) { proxy, _ in
            let big = try await proxy.get("/v0/seg1.ts", headers: [("Cookie", String(repeating: "a", count: 20_000))])
            #expect(big.status == 431)
            #expect(big.text.contains("maxRequestHeadBytes"))
            let fits = try await proxy.get("/v0/seg1.ts", headers: [("Cookie", String(repeating: "a", count: 6000))])
            #expect(fits.status == 200)
        }
    }

    /// A head over the limit that arrives pipelined behind a request being answered: the earlier
    /// request is answered in full, then the 431, then the connection ends.
    @Test func aPipelinedOversizedHeadGets431AfterTheRequestsBeforeIt() async throws {
        try await Self.withProxy({ $0.clients.maxRequestHeadBytes = 8192 }) { proxy, _ in
            let port = proxy.port
            let responses = try await RawHTTP.run {
                let connection = try RawHTTPConnection(port: port, readTimeout: 10)
                return try connection.pipeline(["/v0/seg1.ts", "/v0/seg1.ts?" + String(repeating: "a", count: 20_000)])
            }
            #expect(responses.map(\.status) == [200, 431])
            #expect(responses.first?.body.count ?? 0 > 1000)
            #expect(responses.last?.header("connection") == "close")
        }
    }

    @Test func pipelinedRequestsAreNotMistakenForOneLargeHead() async throws {
        try await Self.withProxy({ $0.clients.maxRequestHeadBytes = 1024 }) { proxy, _ in
            let port = proxy.port
            let statuses = try await RawHTTP.run {
                let connection = try RawHTTPConnection(port: port, readTimeout: 10)
                return try connection.pipeline(Array(repeating: "/v0/seg1.ts", count: 30)).map(\.status)
            }
            #expect(statuses == Array(repeating: 200, count: 30))
        }
    }
}
