import Testing
import TestSupport
@testable import Upstream

@Suite struct UpstreamErrorTests {
    @Test func refusedConnectionIsAConnectError() async throws {
        // Bound and never listening: a port of a server that was shut down could be taken by a test
        // running beside this one (seen once, under load: the fetch then got another answer).
        let refusing = try RefusingPort()
        let url = "http://127.0.0.1:\(refusing.port)/x.ts"
        let client = try UpstreamClient()
        let error = await upstreamError { () async throws(UpstreamError) in try await client.fetch(UpstreamRequest(url: url)) }
        await client.shutdown()
        withExtendedLifetime(refusing) {}
        guard case .connect(url, _)? = error else {
            Issue.record("expected .connect, got \(String(describing: error))")
            return
        }
        let text = try #require(error?.description)
        #expect(text.hasPrefix("could not connect"))
        #expect(text.hasSuffix("for \(url)"))
        #expect(!text.contains("\n"))
    }

    @Test func unresolvableHostIsADNSError() async throws {
        let client = try UpstreamClient()
        let url = "http://nonexistent.invalid/master.m3u8"
        let error = await upstreamError { () async throws(UpstreamError) in try await client.fetch(UpstreamRequest(url: url)) }
        await client.shutdown()
        guard case .dns(url, _)? = error else {
            Issue.record("expected .dns, got \(String(describing: error))")
            return
        }
        #expect(error?.isTimeout == false)
        #expect(error?.description.contains(url) == true)
    }

    @Test func connectionThatNeverCompletesIsAConnectTimeout() async throws {
        let listener = try #require(StalledListener())
        let client = try UpstreamClient(configuration: UpstreamConfiguration(connectTimeout: .seconds(1)))
        let url = "http://127.0.0.1:\(listener.port)/seg.ts"
        let started = ContinuousClock.now
        let error = await upstreamError { () async throws(UpstreamError) in try await client.fetch(UpstreamRequest(url: url)) }
        let waited = ContinuousClock.now - started
        await client.shutdown()
        withExtendedLifetime(listener) {}
        guard case .timeout(url, .connect, _)? = error else {
            Issue.record("expected .timeout(.connect), got \(String(describing: error))")
            return
        }
        #expect(waited >= .milliseconds(900))
        #expect(error?.description.hasSuffix("for \(url)") == true)
    }

    @Test func lateHeadIsAFirstByteTimeout() async throws {
        try await withOrigin(configuration: UpstreamConfiguration(firstByteTimeout: .seconds(1))) { origin, client in
            origin.route("/slow.m3u8", .delayedHeaders(.seconds(4), then: .bytes(body: [1])))
            let started = ContinuousClock.now
            let error = await upstreamError { () async throws(UpstreamError) in
                try await client.fetch(UpstreamRequest(url: origin.baseURL + "/slow.m3u8"))
            }
            let waited = ContinuousClock.now - started
            guard case .timeout(_, .firstByte, _)? = error else {
                Issue.record("expected .timeout(.firstByte), got \(String(describing: error))")
                return
            }
            #expect(error?.isTimeout == true)
            #expect(waited >= .milliseconds(900))
            // The origin sees the transfer abandoned.
            #expect(await origin.waitUntil { $0.responsesAborted == 1 })
        }
    }

    @Test func slowBodyHitsTheTotalTimeout() async throws {
        try await withOrigin { origin, client in
            origin.route("/slow.ts", .generated(size: 1_000_000, chunk: 1000, delayBetweenChunks: .milliseconds(50)))
            let started = ContinuousClock.now
            let response = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/slow.ts", totalTimeout: .seconds(1)))
            #expect(response.status == 200)
            let error = await upstreamError { () async throws(UpstreamError) in try await response.body.collect(upTo: 10_000_000) }
            guard case .timeout(_, .total, _)? = error else {
                Issue.record("expected .timeout(.total), got \(String(describing: error))")
                return
            }
            #expect(ContinuousClock.now - started >= .milliseconds(900))  // curl's timer has millisecond granularity
        }
    }

    @Test func connectionClosedWithoutAnswerIsATransferError() async throws {
        try await withOrigin { origin, client in
            origin.route("/drop.ts", .closeImmediately)
            let error = await upstreamError { () async throws(UpstreamError) in
                try await client.fetch(UpstreamRequest(url: origin.baseURL + "/drop.ts"))
            }
            guard case .transfer(let url, _)? = error else {
                Issue.record("expected .transfer, got \(String(describing: error))")
                return
            }
            #expect(url == origin.baseURL + "/drop.ts")
        }
    }

    @Test func originClosingMidBodyIsATransferErrorAfterTheBytesItSent() async throws {
        try await withOrigin { origin, client in
            origin.route("/cut.ts", .truncated(size: 100_000, after: 30_000))
            let response = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/cut.ts"))
            #expect(response.header("Content-Length") == "100000")
            var received: [UInt8] = []
            let error = await upstreamError { () async throws(UpstreamError) in
                for try await chunk in response.body { received += chunk.readableBytesView }
            }
            #expect(received == patternBytes(offset: 0, count: 30_000))
            guard case .transfer(let url, _)? = error else {
                Issue.record("expected .transfer, got \(String(describing: error))")
                return
            }
            #expect(url == origin.baseURL + "/cut.ts")
        }
    }

    @Test func bodyLargerThanTheLimitIsTooLarge() async throws {
        try await withOrigin { origin, client in
            origin.route("/big.m3u8", .generated(size: 5_000_000))
            let response = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/big.m3u8"))
            let error = await upstreamError { () async throws(UpstreamError) in try await response.body.collect(upTo: 100_000) }
            #expect(error == .tooLarge(url: origin.baseURL + "/big.m3u8", limit: 100_000))
        }
    }

    @Test func unsupportedSchemeIsRefused() async throws {
        let client = try UpstreamClient()
        let error = await upstreamError { () async throws(UpstreamError) in try await client.fetch(UpstreamRequest(url: "file:///etc/passwd")) }
        await client.shutdown()
        guard case .transfer("file:///etc/passwd", _)? = error else {
            Issue.record("expected .transfer, got \(String(describing: error))")
            return
        }
    }

    /// RFC 9110's field syntax, as swift-http-types checks it: a name that is no token, a value with
    /// a control character or a space at either end fail before anything is sent.
    @Test(arguments: [("X-Why(not)", "1"), ("X-Bell", "a\u{7}b"), ("X-Space", " a")])
    func invalidRequestHeadersFailBeforeAnythingIsSent(header: (name: String, value: String)) async throws {
        try await withOrigin { origin, client in
            origin.route("/a.ts", .bytes(body: [1]))
            let request = UpstreamRequest(url: origin.baseURL + "/a.ts", headers: [header])
            let error = await upstreamError { () async throws(UpstreamError) in try await client.fetch(request) }
            guard case .setup(let message)? = error else {
                Issue.record("expected .setup, got \(String(describing: error))")
                return
            }
            #expect(message.contains(header.name), "\(message)")
            #expect(origin.requestLog.isEmpty)
        }
    }

    @Test func fetchAfterShutdownFails() async throws {
        let client = try UpstreamClient()
        await client.shutdown()
        let error = await upstreamError { () async throws(UpstreamError) in try await client.fetch(UpstreamRequest(url: "http://127.0.0.1:1/")) }
        guard case .setup? = error else {
            Issue.record("expected .setup, got \(String(describing: error))")
            return
        }
    }
}
