import Foundation
import Testing
import TestSupport

/// Requests a scanner, a fuzzer or a broken player might send: each gets one clear answer, and the
/// proxy keeps serving everybody else.
@Suite struct HostileRequestTests {
    static let loop = WireFaultTests.scenario(
        #"{"id": "loop", "match": {"kind": "segment"}, "action": {"redirect": {"loop": true}}}"#)

    @Test func hopCounterThatWouldOverflowIsRefusedAndTheProxyLives() async throws {
        try await WireFaultTests.withFixture(Self.loop) { proxy, origin in
            let segment = HLSFixture.segmentPath(port: origin.port, variant: 0, msn: 1)
            let looped = try await proxy.get(segment)
            #expect(looped.status == 302)
            for bad in ["9223372036854775807", "-9223372036854775808", "99999999999999999999", "101", "1&hlschaos-hop=0"] {
                let refused = try await proxy.get(segment + "?hlschaos-hop=" + bad)
                #expect(refused.status == 400, "hop \(bad)")
                #expect(refused.text.contains("hlschaos-hop"), "the message names the parameter: \(refused.text)")
            }
            // Still alive, still looping.
            #expect(await proxy.status(segment) == 302)
        }
    }

    @Test func presetListsAreBounded() async throws {
        try await TestOrigin.with { origin in
            HLSFixture.install(on: origin)
            try await ProxyHarness.with(upstreamURL: origin.baseURL) { proxy in
                let nine = ["gap", "status-503", "status-404", "status-410", "status-500", "status-502", "status-504", "strip-variant", "live-lag"]
                let tooMany = try await proxy.get("/s/tv+" + nine.joined(separator: "+") + "/v0/seg1.ts")
                #expect(tooMany.status == 400)
                #expect(tooMany.text.contains("9 given, at most 8"), "\(tooMany.text)")
                let repeated = try await proxy.get("/s/tv+" + Array(repeating: "gap", count: 20).joined(separator: "+") + "/v0/seg1.ts")
                #expect(repeated.status == 200, "a name given twice applies once")
                let unknown = try await proxy.get("/s/tv+status-50/v0/seg1.ts")
                #expect(unknown.status == 404)
                #expect(unknown.text.contains("status-503"), "suggests or lists the presets: \(unknown.text)")
            }
        }
    }

    @Test func malformedRangesAreRefusedBeforeTheOrigin() async throws {
        try await TestOrigin.with { origin in
            HLSFixture.install(on: origin)
            try await ProxyHarness.with(upstreamURL: origin.baseURL) { proxy in
                let segment = "/v0/seg1.ts"
                for range in ["bytes=99999999999999999999-", "bytes=5-1", "bytes=-", "bytes=a-b", "bytes=", "bytes=1-2,,"] {
                    let refused = try await proxy.get(segment, headers: [("Range", range)])
                    #expect(refused.status == 400, "\(range)")
                    #expect(refused.text.contains("Range"), "\(refused.text)")
                }
                let before = origin.requestLog.count
                let fine = try await proxy.get(segment, headers: [("Range", "bytes=10-19")])
                #expect(fine.status == 206)
                #expect(fine.body == patternBytes(offset: 10, count: 10))
                #expect(origin.requestLog.count == before + 1, "only the valid range reached the origin")
            }
        }
    }

    /// An entry playlist whose origin promises 5000 bytes and closes after 48: one 502, and the
    /// next request on the connection gets its own answer.
    @Test func entryPlaylistCutShortGetsExactlyOneAnswer() async throws {
        try await TestOrigin.with { origin in
            HLSFixture.install(on: origin)
            let partial = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\nseg0.ts\n"
            origin.route("/cut.m3u8", .raw(Array((
                "HTTP/1.1 200 OK\r\nContent-Type: application/vnd.apple.mpegurl\r\nContent-Length: 5000\r\n\r\n" + partial).utf8)))
            try await ProxyHarness.with(upstreamURL: origin.baseURL) { proxy in
                let responses = try await RawHTTP.run {
                    let connection = try RawHTTPConnection(port: proxy.port, readTimeout: 10)
                    let first = try connection.request("GET", "/cut.m3u8")
                    let second = try connection.request("GET", "/v0/seg1.ts")
                    return [first, second]
                }
                #expect(responses[0].status == 502)
                #expect(responses[1].status == 200, "the second request read \(responses[1].status): \(responses[1].text.prefix(120))")
                #expect(responses[1].body == patternBytes(offset: 0, count: HLSFixture.segmentSize))
            }
        }
    }

    /// A 204 or a 304 from the origin for a session-data URL under a rule that damages session
    /// data: the damage made bytes of the empty body, and the proxy sent them after the head, where
    /// a keep-alive client reads them as the start of the next response (HTTPFuzzTests, seed
    /// 20240611 case 10058). The answer has no body, and the next request on the connection gets
    /// its own answer.
    @Test(arguments: [204, 304])
    func anEmptyStatusUnderContentDamageKeepsTheConnectionInStep(status: Int) async throws {
        try await TestOrigin.with { origin in
            HLSFixture.install(on: origin)
            origin.route("/meta.json", .bytes(status: status, body: []))
            try await ProxyHarness.with(upstreamURL: origin.baseURL) { proxy in
                let target = "/s/tv+session-data-format-error/~sessiondata/http/127.0.0.1:\(origin.port)/meta.json"
                let responses = try await RawHTTP.run {
                    let connection = try RawHTTPConnection(port: proxy.port, readTimeout: 10)
                    let first = try connection.request("GET", target)
                    let second = try connection.request("GET", "/v0/seg1.ts")
                    return [first, second]
                }
                #expect(responses[0].status == status)
                #expect(responses[0].body.isEmpty && responses[0].header("Content-Length").map { $0 == "0" } ?? true, "\(responses[0].headers)")
                #expect(responses[1].status == 200, "the second request read \(responses[1].status): \(responses[1].text.prefix(120))")
                #expect(responses[1].body == patternBytes(offset: 0, count: HLSFixture.segmentSize))
                #expect(origin.requestLog.contains { $0.path == "/meta.json" }, "the session-data request reached the origin")
            }
        }
    }

    /// A slow client that sends an HTTP/1.0 `Connection: close` request and keeps sending (a later
    /// request, unfinished) while it reads the answer. The proxy closes after the response; closing
    /// with the client still sending made the kernel reset the connection and drop the end of the
    /// response still in the send buffer (the HTTP fuzzer's cut-by-later finding). A lingering close
    /// lets the whole body arrive, then a clean end.
    @Test func clientStillSendingAfterConnectionCloseGetsTheWholeResponse() async throws {
        try await TestOrigin.with { origin in
            HLSFixture.install(on: origin)
            try await ProxyHarness.with(upstreamURL: origin.baseURL) { proxy in
                let (body, ending) = try await RawHTTP.run {
                    let connection = try RawHTTPConnection(port: proxy.port, readTimeout: 10, receiveBuffer: 2048)
                    connection.sendRaw(Array("GET /v0/seg1.ts HTTP/1.0\r\nHost: x\r\nConnection: close\r\n\r\nGET /v0/seg2.ts HTTP/1.1\r\n".utf8))
                    var line = 0
                    while true {
                        let (_, ending) = connection.readSome(limit: 1024)
                        if let ending { return (connection.readUntilClosed().bytes, ending) }
                        line += 1
                        connection.sendRaw(Array("X-Still-Sending-\(line): v\r\n".utf8))
                        usleep(2_000)  // the pace of a client that keeps sending (what is tested), not a wait
                    }
                }
                let headEnd = RawHTTPConnection.find(Array("\r\n\r\n".utf8), in: body).map { $0 + 4 } ?? 0
                #expect(ending == .complete, "the connection ended with \(ending) after \(body.count) bytes")
                #expect(Array(body[headEnd...]) == patternBytes(offset: 0, count: HLSFixture.segmentSize))
            }
        }
    }
}
