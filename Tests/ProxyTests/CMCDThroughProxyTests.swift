import Foundation
import Proxy
import Records
import Testing
import TestSupport

/// CMCD through the proxy (docs/cmcd.md): read from every request into its record, passed to the
/// origin unchanged by default or taken off with `stripCMCD`, matched by rules, naming forward
/// sessions by `sid`; malformed CMCD is a finding and the request is served as without it.
@Suite struct CMCDThroughProxyTests {
    static let body: [UInt8] = Array(repeating: 7, count: 4096)
    /// A signed-looking URL with CMCD appended in the middle: the rest must reach the origin byte for byte.
    static let target = "/media/seg1.ts?token=a%2Fb%3D&CMCD=br%3D3000%2Cot%3Dv%2Csid%3D%22s-1%22&empty=&x=1+2"
    static let withoutCMCD = "/media/seg1.ts?token=a%2Fb%3D&empty=&x=1+2"
    static let headers = [("CMCD-Request", "bl=1800,su"), ("cmcd-status", "bs"), ("User-Agent", "TestPlayer/1.0"), ("X-Other", "kept")]

    static func withOrigin(
        rules: [String] = [], configure: (inout ProxyConfiguration) -> Void = { _ in },
        _ body: (ProxyHarness, TestOrigin) async throws -> Void
    ) async throws {
        try await TestOrigin.with { origin in
            origin.route("/media/seg1.ts", .bytes(headers: [("Content-Type", "video/mp2t")], body: Self.body))
            try await ProxyHarness.with(upstreamURL: origin.baseURL, rules: rules, configure: configure) { proxy in
                try await body(proxy, origin)
            }
        }
    }

    @Test func byDefaultTheOriginGetsCMCDUnchangedAndTheRecordKeepsIt() async throws {
        try await Self.withOrigin { proxy, origin in
            let response = try await proxy.get(Self.target, headers: Self.headers)
            #expect(response.status == 200 && response.body == Self.body)
            let seen = try #require(origin.requestLog.last)
            #expect(seen.uri == Self.target)
            #expect(seen.header("cmcd-request") == "bl=1800,su" && seen.header("cmcd-status") == "bs")
            let record = try #require(await RecordTests.record(proxy, Self.target))
            let cmcd = try #require(record.cmcd)
            #expect(cmcd.text == #"bl=1800,br=3000,bs,ot=v,sid="s-1",su"#)
            #expect(cmcd.carriages == ["CMCD-Request", "CMCD-Status", "query"])
            #expect(cmcd.findings == nil)
            #expect(record.upstream?.url.hasSuffix(Self.target) == true)
        }
    }

    @Test func stripCMCDTakesTheArgumentAndHeadersOffAndNothingElse() async throws {
        try await Self.withOrigin(configure: { $0.stripCMCD = true }) { proxy, origin in
            let response = try await proxy.get(Self.target, headers: Self.headers)
            #expect(response.status == 200 && response.body == Self.body)
            let seen = try #require(origin.requestLog.last)
            #expect(seen.uri == Self.withoutCMCD)
            #expect(!seen.headers.contains { $0.name.lowercased().hasPrefix("cmcd-") }, "\(seen.headers)")
            #expect(seen.header("user-agent") == "TestPlayer/1.0" && seen.header("x-other") == "kept")
            // The record still says what the player sent, and which URL the origin was asked for.
            let record = try #require(await RecordTests.record(proxy, Self.target))
            #expect(record.cmcd?.text.contains("bl=1800") == true)
            #expect(record.upstream?.url.hasSuffix(Self.withoutCMCD) == true)

            // A query that held only CMCD loses its "?"; a request without CMCD is untouched.
            _ = try await proxy.get("/media/seg1.ts?CMCD=bl%3D100")
            #expect(origin.requestLog.last?.uri == "/media/seg1.ts")
            _ = try await proxy.get("/media/seg1.ts?cmcd=lowercase-is-another-argument")
            #expect(origin.requestLog.last?.uri == "/media/seg1.ts?cmcd=lowercase-is-another-argument")
        }
    }

    @Test func aSessionStripsWhenTheConfigurationDoesNot() async throws {
        try await Self.withOrigin { proxy, origin in
            let control = proxy.server.control
            control.openSession("tv1", scenario: nil)
            #expect(control.setStripCMCD(true, session: "tv1")?.stripCMCD == true)
            _ = try await proxy.get("/s/tv1" + Self.target, headers: Self.headers)
            #expect(origin.requestLog.last?.uri == Self.withoutCMCD)
            _ = try await proxy.get(Self.target, headers: Self.headers)
            #expect(origin.requestLog.last?.uri == Self.target, "another session keeps the configuration's setting")
            control.setStripCMCD(nil, session: "tv1")
            _ = try await proxy.get("/s/tv1" + Self.target, headers: Self.headers)
            #expect(origin.requestLog.last?.uri == Self.target)
            #expect(control.setStripCMCD(true, session: "nobody") == nil)
        }
    }

    @Test func malformedCMCDIsAFindingAndTheRequestIsServed() async throws {
        try await Self.withOrigin { proxy, origin in
            let bad = [
                ("/media/seg1.ts?CMCD=bl%3D%ZZ1%2Cot%3Dx", [("CMCD-Request", "bl=-5,\"unterminated")]),
                ("/media/seg1.ts?CMCD=a&CMCD=b", [("CMCD-Object", "ot=v\u{e9}")]),
                ("/media/seg1.ts?CMCD=" + String(repeating: "x", count: 9000), [("CMCD-Session", "sid=\"" + String(repeating: "s", count: 100) + "\"")]),
            ]
            for (index, (target, headers)) in bad.enumerated() {
                let response = try await proxy.get(target, headers: headers)
                #expect(response.status == 200 && response.body == Self.body, "\(target.prefix(60))")
                // (The ring keeps a path of 8 KB at most: the third one's record has it cut.)
                _ = await eventually { proxy.server.control.records(session: "default").count == index + 1 }
                let record = try #require(proxy.server.control.records(session: "default").max { $0.id < $1.id })
                #expect(record.status == 200)
                #expect(record.cmcd?.findings?.isEmpty == false, "\(String(describing: record.cmcd))")
            }
            let conformance = proxy.server.control.cmcdConformance(session: "default")
            #expect(!conformance.isValid && conformance.findings.count == 3)
        }
    }

    @Test func aBufferAwareRuleHitsOnlyWhenTheBufferIsLow() async throws {
        let rules = WireFaultTests.scenario(#"{"id": "low", "match": {"kind": "segment", "cmcd": {"bl": {"below": "2s"}}}, "action": {"status": 503}}"#)
        try await Self.withOrigin(rules: [rules]) { proxy, _ in
            let low = try await proxy.get("/media/seg1.ts", headers: [("CMCD-Request", "bl=1500")])
            let high = try await proxy.get("/media/seg1.ts", headers: [("CMCD-Request", "bl=5000")])
            let lowInQuery = try await proxy.get("/media/seg1.ts?CMCD=bl%3D300")
            let none = try await proxy.get("/media/seg1.ts")
            #expect(low.status == 503 && high.status == 200 && lowInQuery.status == 503)
            #expect(none.status == 200, "no CMCD: a bl condition does not hold")
            _ = await eventually { proxy.server.control.records(session: "default").count == 4 }
            let report = proxy.server.control.report(session: "default")
            #expect(report.player?.faults.map(\.bufferLength) == [1500, 300])
            #expect(report.player?.lowestBuffer?.bufferLength == 300)
            let timeline = proxy.server.control.playerTimeline(session: "default")
            #expect(timeline.requestsWithCMCD == 3 && timeline.requests == 4)
        }
    }

    @Test func aForwardDeviceSendingSidGetsASessionNamedFromIt() async throws {
        try await ForwardHarness.with(configure: { $0.forward.sessionFromCMCD = true }) { forward in
            let url = forward.plainOrigin.baseURL + "/vod/ts/master.m3u8"
            let statuses = [
                try await forward.curl(url, ["-H", #"CMCD-Session: sid="app A/1""#]).status,
                try await forward.curl(url, ["-H", #"CMCD-Session: sid="app-b""#]).status,
                try await forward.curl(url).status,
            ]
            #expect(statuses == [200, 200, 200])
            let control = forward.proxy.server.control
            _ = await eventually { control.records(session: nil).filter { $0.path.hasSuffix("master.m3u8") }.count == 3 }
            #expect(control.records(session: "ip-127-0-0-1.app-A-1").count == 1)
            #expect(control.records(session: "ip-127-0-0-1.app-b").count == 1)
            #expect(control.records(session: "ip-127-0-0-1").count == 1)
        }
    }

    /// Intercepted HTTPS over HTTP/2 (lowercase header names): the same reading, the same rules.
    @Test func interceptedHTTP2RequestsAreReadAndMatchedToo() async throws {
        try await ForwardHarness.with(configure: { $0.forward.intercept = [ForwardHarness.cdnName] }) { forward in
            // cmcd-startup-503: a segment asked for urgently (su) answers 503, one without su does not.
            let user = ["--cacert", forward.rootFile, "--proxy-user", "phone+cmcd-startup-503:x", "--http2"]
            let segment = forward.cdnURL + "/vod/ts/v0/s003.ts"
            let low = try await forward.curl(segment + "?CMCD=bl%3D900%2Csu", user + ["-H", "CMCD-Object: ot=v"])
            let high = try await forward.curl(segment, user + ["-H", "CMCD-Request: bl=9000", "-H", "CMCD-Object: ot=v"])
            #expect(low.status == 503 && low.httpVersion == "2", "\(low.stderr)")
            #expect(high.status == 200 && high.httpVersion == "2", "\(high.stderr)")
            let gets = { forward.proxy.server.control.records(session: "phone").filter { $0.method == "GET" } }
            _ = await eventually { gets().count == 2 }
            let records = gets().sorted { $0.time < $1.time }
            #expect(records.map { $0.cmcd?.text } == ["bl=900,ot=v,su", "bl=9000,ot=v"])
            #expect(records.map(\.httpVersion) == ["HTTP/2", "HTTP/2"])
            // The CONNECTs that opened the tunnels are no requests of the stream: the timeline leaves them out.
            let timeline = forward.proxy.server.control.playerTimeline(session: "phone")
            #expect(timeline.requests == 2 && timeline.requestsWithCMCD == 2)
            #expect(!forward.proxy.server.control.cmcdConformance(session: "phone").conformance.issues.contains { "\($0.kind)" == "withoutCMCD" })
        }
    }

    @Test func withoutTheSwitchSidNamesNoSession() async throws {
        try await ForwardHarness.with { forward in
            let url = forward.plainOrigin.baseURL + "/vod/ts/master.m3u8"
            let status = try await forward.curl(url, ["-H", #"CMCD-Session: sid="app-b""#]).status
            #expect(status == 200)
            _ = await eventually { !forward.proxy.server.control.records(session: nil).isEmpty }
            #expect(forward.proxy.server.control.records(session: "ip-127-0-0-1").count == 1)
        }
    }
}
