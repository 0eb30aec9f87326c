import Foundation
import Testing
import TestSupport

/// Every wire action, observed with a low-level client the way a player would see it.
@Suite struct WireFaultTests {
    /// A proxy with `rules` in front of the fixture stream; the player has loaded the master and both variants.
    static func withFixture(
        _ rules: String, _ body: (ProxyHarness, TestOrigin) async throws -> Void
    ) async throws {
        try await TestOrigin.with { origin in
            HLSFixture.install(on: origin)
            try await ProxyHarness.with(upstreamURL: origin.baseURL, rules: [rules]) { proxy in
                _ = try await proxy.get("/master.m3u8")
                _ = try await proxy.get("/~media.v0/http/127.0.0.1:\(origin.port)/v0/index.m3u8")
                _ = try await proxy.get("/~media.v1/http/127.0.0.1:\(origin.port)/v1/index.m3u8")
                try await body(proxy, origin)
            }
        }
    }

    static func scenario(_ rules: String) -> String {
        #"{"name": "test", "description": "test", "rules": [\#(rules)]}"#
    }

    @Test func statusTargetsOneSegmentOfOneVariantWithHeaders() async throws {
        let rules = Self.scenario(#"{"id": "v1-msn3", "match": {"kind": "segment", "variant": {"index": 1}, "msn": 3}, "action": {"status": 503, "headers": {"Retry-After": "2"}}}"#)
        try await Self.withFixture(rules) { proxy, origin in
            let failed = try await proxy.get(HLSFixture.segmentPath(port: origin.port, variant: 1, msn: 3))
            #expect(failed.status == 503)
            #expect(failed.header("retry-after") == "2")
            #expect(failed.header("x-hlschaos-fault") == "test/v1-msn3")
            let before = origin.requestLog.count
            #expect(origin.requestLog.allSatisfy { !$0.path.hasSuffix("/v1/seg3.ts") }, "the origin must not be asked")
            let sibling = try await proxy.get(HLSFixture.segmentPath(port: origin.port, variant: 1, msn: 2))
            #expect(sibling.status == 200)
            #expect(sibling.body == patternBytes(offset: 0, count: HLSFixture.segmentSize))
            let otherVariant = try await proxy.get(HLSFixture.segmentPath(port: origin.port, variant: 0, msn: 3))
            #expect(otherVariant.status == 200)
            #expect(otherVariant.header("x-hlschaos-fault") == nil)
            #expect(origin.requestLog.count == before + 2)
        }
    }

    @Test func unauthorizedMasterCarriesWWWAuthenticate() async throws {
        let rules = Self.scenario(#"{"id": "auth", "match": {"kind": "master"}, "action": {"status": 401, "headers": {"WWW-Authenticate": "Bearer realm=\"cdn\""}}}"#)
        try await TestOrigin.with { origin in
            HLSFixture.install(on: origin)
            try await ProxyHarness.with(upstreamURL: origin.baseURL, rules: [rules]) { proxy in
                let response = try await proxy.get("/master.m3u8")
                #expect(response.status == 401)
                #expect(response.header("www-authenticate") == "Bearer realm=\"cdn\"")
            }
        }
    }

    @Test func delayHoldsTheResponseHead() async throws {
        let rules = Self.scenario(#"{"id": "slow", "match": {"kind": "segment", "msn": 1}, "action": {"delay": "1500ms"}}"#)
        try await Self.withFixture(rules) { proxy, origin in
            let response = try await proxy.get(HLSFixture.segmentPath(port: origin.port, variant: 0, msn: 1))
            #expect(response.status == 200)
            #expect(response.secondsToHead >= 1.4)
            #expect(response.body == patternBytes(offset: 0, count: HLSFixture.segmentSize))
        }
    }

    @Test func hangWithDurationClosesWithoutAnswer() async throws {
        let rules = Self.scenario(#"{"id": "hang", "match": {"kind": "segment", "msn": 0}, "action": {"hang": "1s"}}"#)
        try await Self.withFixture(rules) { proxy, origin in
            let start = Date()
            await #expect(throws: RawHTTPConnection.Failure.closedBeforeHead) {
                _ = try await proxy.get(HLSFixture.segmentPath(port: origin.port, variant: 0, msn: 0))
            }
            #expect(Date().timeIntervalSince(start) >= 0.9)
        }
    }

    @Test func hangForeverLeavesTheClientWaiting() async throws {
        let rules = Self.scenario(#"{"id": "hang", "match": {"kind": "segment", "msn": 0}, "action": {"hang": true}}"#)
        try await Self.withFixture(rules) { proxy, origin in
            await #expect(throws: RawHTTPConnection.Failure.timedOutBeforeHead) {
                _ = try await proxy.get(HLSFixture.segmentPath(port: origin.port, variant: 0, msn: 0), readTimeout: 2)
            }
        }
    }

    @Test func throttleCapsTheRate() async throws {
        // 100 kB at 100 KB/s: about a second; the origin alone takes milliseconds.
        let rules = Self.scenario(#"{"id": "slow", "match": {"kind": "segment", "msn": 2}, "action": {"throttle": "100KB/s"}}"#)
        try await Self.withFixture(rules) { proxy, origin in
            let response = try await proxy.get(HLSFixture.segmentPath(port: origin.port, variant: 0, msn: 2))
            #expect(response.body == patternBytes(offset: 0, count: HLSFixture.segmentSize))
            #expect(response.secondsTotal >= 0.85)
            #expect(response.secondsTotal < 10)
        }
    }

    @Test func stallPausesMidBody() async throws {
        let rules = Self.scenario(#"{"id": "stall", "match": {"kind": "segment", "msn": 2}, "action": {"stall": {"afterBytes": 5000, "for": "1200ms"}}}"#)
        try await Self.withFixture(rules) { proxy, origin in
            let response = try await proxy.get(HLSFixture.segmentPath(port: origin.port, variant: 0, msn: 2))
            #expect(response.body == patternBytes(offset: 0, count: HLSFixture.segmentSize))
            #expect(response.secondsTotal >= 1.1)
            #expect(response.secondsToHead < response.secondsTotal - 1)
        }
    }

    @Test func resetBeforeHeadersIsATCPReset() async throws {
        let rules = Self.scenario(#"{"id": "rst", "match": {"kind": "segment", "msn": 4}, "action": {"reset": "before-headers"}}"#)
        try await Self.withFixture(rules) { proxy, origin in
            await #expect(throws: RawHTTPConnection.Failure.resetBeforeHead) {
                _ = try await proxy.get(HLSFixture.segmentPath(port: origin.port, variant: 0, msn: 4))
            }
        }
    }

    @Test func resetMidBodyIsATCPResetAfterHeaders() async throws {
        let rules = Self.scenario(#"{"id": "rst", "match": {"kind": "segment", "msn": 4}, "action": {"reset": {"afterBytes": 20000}}}"#)
        try await Self.withFixture(rules) { proxy, origin in
            let response = try await proxy.get(HLSFixture.segmentPath(port: origin.port, variant: 0, msn: 4))
            #expect(response.status == 200)
            #expect(response.ending == .reset)
            #expect(response.body.count <= 20000)
        }
    }

    @Test func truncateSendsFewerBytesThanContentLength() async throws {
        let rules = Self.scenario(#"""
            {"id": "cut", "match": {"kind": "segment", "msn": 1}, "action": {"truncate": {"afterBytes": 1234}}},
            {"id": "half", "match": {"kind": "segment", "msn": 2}, "action": {"truncate": {"fraction": 0.5}}}
            """#)
        try await Self.withFixture(rules) { proxy, origin in
            let cut = try await proxy.get(HLSFixture.segmentPath(port: origin.port, variant: 0, msn: 1))
            #expect(cut.header("content-length") == String(HLSFixture.segmentSize))
            #expect(cut.ending == .shortRead(expected: HLSFixture.segmentSize))
            #expect(cut.body == patternBytes(offset: 0, count: 1234))
            let half = try await proxy.get(HLSFixture.segmentPath(port: origin.port, variant: 0, msn: 2))
            #expect(half.ending == .shortRead(expected: HLSFixture.segmentSize))
            #expect(half.body == patternBytes(offset: 0, count: HLSFixture.segmentSize / 2))
        }
    }

    /// A truncate promises its bytes, then a FIN. A client slower than the proxy (most of the body
    /// still in the proxy's buffers when the cut comes) must get every byte up to the cut and a clean
    /// end, not a body shortened by whatever the proxy had not yet handed to the socket. The client
    /// reads nothing until the proxy has stopped for it: its socket and buffers full, curl paused,
    /// and so the origin waiting (its body is larger than every buffer on the way).
    @Test func aSlowClientGetsEveryByteUpToTheCutThenAFIN() async throws {
        let size = 64_000_000, cut = 2_000_000
        let rules = Self.scenario(#"{"id": "cut", "match": {"kind": "segment", "msn": 4}, "action": {"truncate": {"afterBytes": \#(cut)}}}"#)
        try await Self.withFixture(rules) { proxy, origin in
            origin.route("/v0/seg4.ts", .generated(size: size))
            let path = HLSFixture.segmentPath(port: origin.port, variant: 0, msn: 4)
            let port = proxy.port
            let request = Array("GET \(path) HTTP/1.1\r\nHost: proxy\r\n\r\n".utf8)
            let before = origin.heldBackCount
            let connection = try await RawHTTP.run {
                let connection = try RawHTTPConnection(port: port, readTimeout: 20, receiveBuffer: 4096)
                connection.sendRaw(request)
                return connection
            }
            defer { connection.close() }
            let stopped = await eventually { origin.heldBackCount > before }
            try #require(stopped, "the proxy never stopped for a client that reads nothing")
            // Then small reads: the proxy stays ahead, the rest waiting in its buffers.
            let received = try await RawHTTP.run {
                while connection.readSome(limit: 4096).ending == nil {}
                return connection.readUntilClosed()
            }
            let (bytes, ending) = received
            let headEnd = try #require(RawHTTPConnection.find(Array("\r\n\r\n".utf8), in: bytes))
            let body = Array(bytes[(headEnd + 4)...])
            #expect(ending == .complete, "a FIN, not a reset or a silence")
            #expect(body.count == cut)
            #expect(body == patternBytes(offset: 0, count: cut))
            let record = try #require(proxy.server.control.records(session: nil).last { $0.msn == 4 })
            #expect(record.ending == .truncated && record.bytesSent == cut, "\(record.ending) \(record.bytesSent)")
        }
    }

    @Test func corruptDamagesTheSameOffsetsEveryTime() async throws {
        let rules = Self.scenario(#"{"id": "bits", "match": {"kind": "segment", "msn": 3}, "action": {"corrupt": {"bytes": 16, "seed": 42}}}"#)
        try await Self.withFixture(rules) { proxy, origin in
            let clean = patternBytes(offset: 0, count: HLSFixture.segmentSize)
            var damagedOffsets: [[Int]] = []
            for _ in 0..<2 {
                let response = try await proxy.get(HLSFixture.segmentPath(port: origin.port, variant: 0, msn: 3))
                #expect(response.body.count == clean.count)
                damagedOffsets.append(zip(response.body, clean).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset))
            }
            #expect(damagedOffsets[0].count == 16)
            #expect(damagedOffsets[0] == damagedOffsets[1])
        }
    }

    @Test func contentTypeIsReplaced() async throws {
        let rules = Self.scenario(#"{"id": "ct", "match": {"kind": "segment"}, "action": {"contentType": "text/html"}}"#)
        try await Self.withFixture(rules) { proxy, origin in
            let response = try await proxy.get(HLSFixture.segmentPath(port: origin.port, variant: 0, msn: 0))
            #expect(response.header("content-type") == "text/html")
            #expect(response.body.count == HLSFixture.segmentSize)
        }
    }

    @Test func redirectChainsThenServes() async throws {
        let rules = Self.scenario(#"{"id": "hops", "match": {"kind": "segment", "msn": 0}, "action": {"redirect": {"status": 302, "hops": 2}}}"#)
        try await Self.withFixture(rules) { proxy, origin in
            var target = HLSFixture.segmentPath(port: origin.port, variant: 0, msn: 0)
            var statuses: [Int] = []
            for _ in 0..<3 {
                let response = try await proxy.get(target)
                statuses.append(response.status)
                guard let location = response.header("location") else {
                    #expect(response.body == patternBytes(offset: 0, count: HLSFixture.segmentSize))
                    break
                }
                target = location
            }
            #expect(statuses == [302, 302, 200])
        }
    }

    @Test func redirectLoopNeverServes() async throws {
        let rules = Self.scenario(#"{"id": "loop", "match": {"kind": "segment", "msn": 0}, "action": {"redirect": {"status": 301, "loop": true}}}"#)
        try await Self.withFixture(rules) { proxy, origin in
            var target = HLSFixture.segmentPath(port: origin.port, variant: 0, msn: 0)
            for _ in 0..<5 {
                let response = try await proxy.get(target)
                #expect(response.status == 301)
                target = try #require(response.header("location"))
            }
        }
    }

    @Test func rejectRangesAnswers501OnlyToRangeRequests() async throws {
        let rules = Self.scenario(#"{"id": "ranges", "match": {"kind": "segment"}, "action": {"rejectRanges": true}}"#)
        try await Self.withFixture(rules) { proxy, origin in
            let ranged = try await proxy.get(HLSFixture.segmentPath(port: origin.port, variant: 0, msn: 0), headers: [("Range", "bytes=0-99")])
            #expect(ranged.status == 501)
            let whole = try await proxy.get(HLSFixture.segmentPath(port: origin.port, variant: 0, msn: 0))
            #expect(whole.status == 200)
        }
    }

    @Test func keyDamageChangesTheKeyBytes() async throws {
        let rules = Self.scenario(#"""
            {"id": "short", "match": {"kind": "key", "requests": {"from": 1, "to": 1}}, "action": {"key": "wrong-length"}},
            {"id": "wrong", "match": {"kind": "key", "requests": {"from": 2, "to": 2}}, "action": {"key": "wrong-bytes"}}
            """#)
        try await Self.withFixture(rules) { proxy, origin in
            let keyPath = "/~key.v1.n0/http/127.0.0.1:\(origin.port)/key.bin"
            let short = try await proxy.get(keyPath)
            #expect(short.status == 200)
            #expect(short.body.count != 16)
            let wrong = try await proxy.get(keyPath)
            #expect(wrong.body.count == 16)
            #expect(wrong.body != HLSFixture.key)
            let third = try await proxy.get(keyPath)
            #expect(third.body == HLSFixture.key)
        }
    }

    @Test func requestCountsArePerSession() async throws {
        let rules = Self.scenario(#"{"id": "second", "match": {"kind": "segment", "msn": 1, "requests": {"from": 2, "to": 2}}, "action": {"status": 500}}"#)
        try await Self.withFixture(rules) { proxy, origin in
            let a = HLSFixture.segmentPath(port: origin.port, variant: 0, msn: 1, session: "a")
            let b = HLSFixture.segmentPath(port: origin.port, variant: 0, msn: 1, session: "b")
            #expect(await proxy.status(a) == 200)
            #expect(await proxy.status(b) == 200)
            #expect(await proxy.status(a) == 500)
            #expect(await proxy.status(a) == 200)
            #expect(await proxy.status(b) == 500)
        }
    }

    @Test func variantSelectedByBandwidthUsesTheSessionsMaster() async throws {
        let rules = Self.scenario(#"{"id": "top", "match": {"kind": "segment", "variant": "highest"}, "action": {"status": 404}}"#)
        try await Self.withFixture(rules) { proxy, origin in
            #expect(await proxy.status(HLSFixture.segmentPath(port: origin.port, variant: 1, msn: 0)) == 404)
            #expect(await proxy.status(HLSFixture.segmentPath(port: origin.port, variant: 0, msn: 0)) == 200)
        }
    }
}

extension WireFaultTests {
    @Test func statusBodyIsSentExactlyAndEntrySegmentsAreMatchedToo() async throws {
        let rules = Self.scenario(#"{"id": "teapot", "match": {"kind": "segment"}, "action": {"status": 418, "body": "no", "headers": {"Content-Type": "application/json"}}}"#)
        try await Self.withFixture(rules) { proxy, _ in
            let response = try await proxy.get("/v0/seg1.ts")
            #expect(response.status == 418)
            #expect(response.body == Array("no".utf8))
            #expect(response.header("content-type") == "application/json")
        }
    }
}

extension WireFaultTests {
    @Test func indexAndMediaTimeComeFromTheSessionsPlaylists() async throws {
        let rules = Self.scenario(#"""
            {"id": "by-time", "match": {"kind": "segment", "variant": {"index": 0}, "time": {"from": "4s", "to": "6s"}}, "action": {"status": 500}},
            {"id": "by-index", "match": {"kind": "segment", "variant": {"index": 1}, "index": {"every": 2}}, "action": {"status": 502}}
            """#)
        try await Self.withFixture(rules) { proxy, origin in
            var v0: [Int] = []
            var v1: [Int] = []
            for msn in 0..<HLSFixture.segmentCount {
                v0.append(await proxy.status(HLSFixture.segmentPath(port: origin.port, variant: 0, msn: msn)))
                v1.append(await proxy.status(HLSFixture.segmentPath(port: origin.port, variant: 1, msn: msn)))
            }
            #expect(v0 == [200, 200, 500, 200, 200])  // 2 s segments: the one starting at 4 s
            #expect(v1 == [502, 200, 502, 200, 502])
        }
    }
}
