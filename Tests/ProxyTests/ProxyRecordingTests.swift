import Foundation
import BundleFormat
import Testing
import TestSupport

/// `--record`: what devices fetched through the proxy, as they got it, in a bundle keyed by the
/// upstream URLs (so that `hlschaos replay` can serve it as an origin).
@Suite struct ProxyRecordingTests {
    static let rules = WireFaultTests.scenario("""
        {"id": "fail", "match": {"kind": "segment", "variant": {"index": 1}, "msn": 3}, "action": {"status": 503, "headers": {"Retry-After": "2"}}},
        {"id": "cut", "match": {"kind": "segment", "variant": {"index": 1}, "msn": 4}, "action": {"truncate": {"afterBytes": 1000}}},
        {"id": "slow", "match": {"kind": "segment", "variant": {"index": 0}, "msn": 1}, "action": {"delay": "300ms"}},
        {"id": "gone", "match": {"kind": "segment", "variant": {"index": 0}, "msn": 2}, "action": {"gap": true}}
        """)

    @Test func everyDeviceRequestIsKeptAsTheDeviceGotItUnderItsUpstreamURL() async throws {
        try await withTemporaryFolder("proxyrec") { folder in
            let bundlePath = folder.path("bundle")
            try await TestOrigin.with { origin in
                HLSFixture.install(on: origin)
                try await ProxyHarness.with(upstreamURL: origin.baseURL, rules: [Self.rules], configure: { $0.recordPath = bundlePath }) { proxy in
                    let port = origin.port
                    let base = "http://127.0.0.1:\(port)"
                    #expect(try await proxy.get("/s/tv1/master.m3u8").status == 200)
                    let media0 = try await proxy.get("/s/tv1/~media.v0/http/127.0.0.1:\(port)/v0/index.m3u8")
                    #expect(media0.text.contains("#EXT-X-GAP"))
                    _ = try await proxy.get("/s/tv1/~media.v1/http/127.0.0.1:\(port)/v1/index.m3u8")
                    let clean = try await proxy.get(HLSFixture.segmentPath(port: port, variant: 1, msn: 2, session: "tv1"))
                    #expect(try await proxy.get(HLSFixture.segmentPath(port: port, variant: 1, msn: 3, session: "tv1")).status == 503)
                    #expect(try await proxy.get(HLSFixture.segmentPath(port: port, variant: 1, msn: 4, session: "tv1")).body.count == 1000)
                    #expect(try await proxy.get(HLSFixture.segmentPath(port: port, variant: 0, msn: 1, session: "tv2")).status == 200)
                    #expect(try await proxy.get("/s/tv1/@nowhere/x.ts").status == 404, "refused before any upstream: not recorded")
                    let manifest = try #require(try proxy.server.control.stopRecording(session: nil))
                    await proxy.stop()
                    try await origin.shutdown()
                    #expect(manifest.exchangeCount == 7)

                    let bundle = try RecordingBundle.open(bundlePath)
                    #expect(bundle.manifest.source == .proxy && bundle.manifest.ended != nil)
                    func exchange(_ path: String) throws -> Exchange { try #require(bundle.exchanges.first { $0.url == base + path }, "\(path)") }

                    let master = try exchange("/master.m3u8")
                    #expect(master.kind == "master" && master.session == "tv1" && master.status == 200)
                    let masterText = String(decoding: try bundle.body(of: master), as: UTF8.self)
                    #expect(masterText.contains("\(base)/v0/index.m3u8") && !masterText.contains("~"), "origin URIs, not the proxy's:\n\(masterText)")

                    let playlist0 = String(decoding: try bundle.body(of: try exchange("/v0/index.m3u8")), as: UTF8.self)
                    #expect(playlist0.contains("#EXT-X-GAP") && playlist0.contains("\(base)/v0/seg2.ts"), "the playlist as served, faults included")
                    #expect(try exchange("/v0/index.m3u8").header("content-length") == nil, "its length is the stored body's")

                    let segment = try exchange("/v1/seg2.ts")
                    #expect(try bundle.body(of: segment) == clean.body && segment.header("content-length") == "100000")
                    #expect(segment.timings.total != nil && segment.timings.firstByte != nil)

                    let failed = try exchange("/v1/seg3.ts")
                    #expect(failed.status == 503 && failed.header("retry-after") == "2" && failed.header("x-hlschaos-fault") == nil)
                    #expect(String(decoding: try bundle.body(of: failed), as: UTF8.self).contains("503"))

                    let cut = try exchange("/v1/seg4.ts")
                    #expect(cut.ending == .truncated && cut.body?.size == 1000 && cut.header("content-length") == "100000")

                    let slow = try exchange("/v0/seg1.ts")
                    #expect(slow.session == "tv2" && (slow.timings.firstByte ?? 0) >= 0.25, "the delay is in the timing: \(slow.timings)")
                    #expect(bundle.exchanges.allSatisfy { $0.at >= 0 && $0.at < 60 })
                }
            }
        }
    }

    @Test func aRecordingThatCannotStartStopsStartUpWithTheReason() async throws {
        try await withTemporaryFolder("proxyrec") { folder in
            let taken = folder.url
            try folder.file("keep.txt", "x")
            await #expect { _ = try await ProxyHarness.start(upstreamURL: "http://127.0.0.1:9") { $0.recordPath = taken.path } } throws: {
                "\($0)".contains("cannot record") && "\($0)".contains("already exists")
            }
        }
    }
}
