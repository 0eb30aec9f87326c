import Chaos
import Foundation
import Link
import Proxy
import Records
import Testing
import TestSupport

/// A session's link measured where a device would measure it: clients on loopback, the real clock,
/// the bytes counted as they arrive. Bounds are the issue's (±5 % over 5 s for one session) or
/// wider where many sessions share two cores; run in the timing phase (scripts/test.sh), alone.
@Suite(.serialized) struct LinkThroughProxyTests {
    static func choice(_ json: String) throws -> LinkChoice {
        LinkChoice(spec: try LinkSpecReader.read(bytes: Array(json.utf8)), from: "the test")
    }

    /// A proxy in front of an origin with a long video segment, a shorter audio one and a playlist.
    static func withOrigin(_ body: (ProxyHarness) async throws -> Void) async throws {
        try await TestOrigin.with { origin in
            origin.route("/video.ts", .generated(size: 8 << 20))
            origin.route("/audio.aac", .generated(size: 1 << 20))
            origin.route("/index.m3u8", .bytes(headers: [("content-type", "application/vnd.apple.mpegurl")], body: Array("""
                #EXTM3U
                #EXT-X-TARGETDURATION:4
                #EXTINF:4,
                video.ts
                #EXT-X-ENDLIST

                """.utf8)))
            try await ProxyHarness.with(upstreamURL: origin.baseURL) { proxy in try await body(proxy) }
        }
    }

    @Test func aSessionsResponsesShareOneCapacityAndAPlaylistDoesNotWaitBehindASegment() async throws {
        try await Self.withOrigin { proxy in
            let control = proxy.server.control
            control.openSession("tv", scenario: nil)
            #expect(try control.setLink(Self.choice(#"{"rate": "2Mbps"}"#), session: "tv"))
            let meter = LinkMeter()
            let seconds = 11.5
            try await withThrowingTaskGroup(of: Void.self) { group in
                for target in ["/s/tv/video.ts", "/s/tv/video.ts", "/s/tv/audio.aac"] {
                    group.addTask { try await meter.fetch(port: proxy.port, target, for: seconds) }
                }
                group.addTask { try await meter.fetch(port: proxy.port, "/s/tv/index.m3u8", for: seconds, pause: 0.25) }
                try await group.waitForAll()
            }
            // Two video responses, an audio one and playlists share 2 Mbps, not 2 Mbps each.
            for window in [(1.0, 6.0), (6.0, 11.0)] {
                let rate = meter.rate(from: window.0, to: window.1)
                #expect(abs(rate - 2_000_000) <= 100_000, "\(window): \(Int(rate)) bit/s, not 2 Mbit/s ± 5 %")
            }
            // A playlist gets its share at the next tick, not after the segments in flight.
            let playlists = meter.durations(of: "/s/tv/index.m3u8")
            #expect(playlists.count >= 20, "\(playlists.count) playlists")
            #expect((playlists.max() ?? 99) < 0.5, "slowest playlist: \(playlists.max() ?? -1) s")
        }
    }

    @Test func fiftySessionsEachHoldTheirOwnCapacity() async throws {
        try await Self.withOrigin { proxy in
            let control = proxy.server.control
            let rates = (0..<50).map { 400_000 + $0 * 40_000 }
            for (index, rate) in rates.enumerated() {
                control.openSession("s\(index)", scenario: nil)
                #expect(try control.setLink(Self.choice(#"{"rate": "\#(rate)bps"}"#), session: "s\(index)"))
            }
            let meters = rates.map { _ in LinkMeter() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in rates.indices {
                    group.addTask { try await meters[index].fetch(port: proxy.port, "/s/s\(index)/video.ts", for: 7.5) }
                }
                try await group.waitForAll()
            }
            var off: [String] = []
            for (index, rate) in rates.enumerated() {
                let measured = meters[index].rate(from: 1.5, to: 6.5)
                if abs(measured - Double(rate)) > Double(rate) * 0.1 {
                    // What the scheduler handed out says whether the link or its caller fell short.
                    let history = control.link(session: "s\(index)")?.snapshot.buckets ?? []
                    let granted = history.dropFirst(6).prefix(20).map(\.deliveredBytes).reduce(0, +) * 8 / 5
                    off.append("s\(index): \(Int(measured)) of \(rate) bit/s (granted \(granted))")
                }
            }
            #expect(off.isEmpty, "sessions outside ±10 % of their capacity: \(off)")
        }
    }

    @Test func aChangeThroughTheAPIReachesABodyInFlightWithin100Milliseconds() async throws {
        try await Self.withOrigin { proxy in
            let control = proxy.server.control
            control.openSession("tv", scenario: nil)
            #expect(try control.setLink(Self.choice(#"{"rate": "4Mbps"}"#), session: "tv"))
            let meter = LinkMeter()
            async let fetched: Void = meter.fetch(port: proxy.port, "/s/tv/video.ts", for: 5)
            try await Task.sleep(for: .seconds(2))
            #expect(try control.setLink(Self.choice(#"{"rate": "500kbps"}"#), session: "tv"))
            let changed = meter.elapsed
            try await fetched
            let before = meter.rate(from: 1.0, to: changed - 0.05)
            let after = meter.rate(from: changed + 0.1, to: 5.0)
            #expect(abs(before - 4_000_000) <= 400_000, "before the change: \(Int(before)) bit/s")
            #expect(abs(after - 500_000) <= 75_000, "from 100 ms after the change: \(Int(after)) bit/s")
        }
    }

    @Test func anOutageStopsDeliveryAndDeliveryResumesAfterIt() async throws {
        try await Self.withOrigin { proxy in
            let control = proxy.server.control
            control.openSession("tv", scenario: nil)
            let meter = LinkMeter()
            #expect(try control.setLink(Self.choice(#"{"rate": "2Mbps", "outages": [{"at": "1500ms", "for": "2s"}]}"#), session: "tv"))
            try await meter.fetch(port: proxy.port, "/s/tv/video.ts", for: 5.5)
            #expect(meter.rate(from: 0.5, to: 1.4) > 1_500_000)
            #expect(meter.bytes(from: 1.6, to: 3.45) == 0, "\(meter.bytes(from: 1.6, to: 3.45)) bytes during the outage")
            let resumed = meter.rate(from: 3.7, to: 5.5)
            #expect(abs(resumed - 2_000_000) <= 200_000, "after the outage: \(Int(resumed)) bit/s")
            // The response's record says how long the link stalled it.
            control.flushRecords()
            #expect(await eventually { control.records(session: "tv").contains { $0.path.hasSuffix("video.ts") } })
            let record = try #require(control.records(session: "tv").first { $0.path.hasSuffix("video.ts") })
            let stalled = try #require(record.link?.stalled)
            #expect(stalled > 1.8 && stalled < 2.3, "stalled \(stalled) s")
        }
    }

    @Test func latencyComesBeforeTheHeadAndANewConnectionPaysARoundTripMore() async throws {
        try await Self.withOrigin { proxy in
            let control = proxy.server.control
            control.openSession("tv", scenario: nil)
            #expect(try control.setLink(Self.choice(#"{"rate": "50Mbps", "latency": {"base": "300ms"}}"#), session: "tv"))
            let (first, second) = try await RawHTTP.run {
                let connection = try RawHTTPConnection(port: proxy.port)
                defer { connection.close() }
                return (try connection.request("GET", "/s/tv/index.m3u8"), try connection.request("GET", "/s/tv/index.m3u8"))
            }
            #expect(first.status == 200 && second.status == 200)
            #expect(first.secondsToHead >= 0.58 && first.secondsToHead < 1.5, "first on its connection: \(first.secondsToHead) s")
            #expect(second.secondsToHead >= 0.29 && second.secondsToHead < 0.9, "second: \(second.secondsToHead) s")
        }
    }

    @Test func duringAnOutageThatResetsNewRequestsAreReset() async throws {
        try await Self.withOrigin { proxy in
            let control = proxy.server.control
            control.openSession("tv", scenario: nil)
            #expect(try control.setLink(Self.choice(#"{"rate": "2Mbps", "duringOutage": "reset"}"#), session: "tv"))
            #expect(control.cutLink(session: "tv", for: .seconds(30)) == true)
            let outcome = try await RawHTTP.run { () -> String in
                let connection = try RawHTTPConnection(port: proxy.port)
                defer { connection.close() }
                do {
                    let response = try connection.request("GET", "/s/tv/index.m3u8")
                    return "status \(response.status)"
                } catch {
                    return "\(error)"
                }
            }
            #expect(outcome == "\(RawHTTPConnection.Failure.resetBeforeHead)", "\(outcome)")
            control.flushRecords()
            #expect(await eventually { control.records(session: "tv").contains { $0.ending == .reset } })
        }
    }
}
