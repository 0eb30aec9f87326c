@testable import DemoOrigin
import Foundation
import HLS
import Testing
import TestSupport

/// The LL demo stream through the proxy: a blocking reload is held as long as the origin holds it
/// and comes back when the asked part is published, with the part in it; the preload hint,
/// rewritten like every URI, gives the part's bytes as the origin serves them.
@Suite struct LowLatencyThroughProxyTests {
    /// The hinted part of a media playlist: its rewritten URI and its position.
    static func hint(_ text: String) throws -> (uri: String, part: PartPosition) {
        let playlist = try Playlist(string: text)
        let uri = try #require(playlist.preloadHints.first { $0.type == "PART" }?.uri, "no part hint in \(text)")
        let name = try #require(uri.split(separator: "/").last)  // part-<msn>.<k>.m4s
        let numbers = name.dropFirst("part-".count).dropLast(".m4s".count).split(separator: ".").compactMap { Int($0) }
        try #require(numbers.count == 2, "a part name: \(name)")
        return (uri, PartPosition(msn: numbers[0], index: numbers[1]))
    }

    @Test func aBlockingReloadAndAHintedPartComeBackWhenThePartIsPublished() async throws {
        try await ProxyHarness.withDemo { proxy, origin in
            let demo = try #require(proxy.demo)
            let master = try await proxy.get("/ll/master.m3u8")
            #expect(master.status == 200)
            let media = try #require(String(decoding: master.body, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("/~media.v0/") })

            // Requests, each with the next hinted part, until one is within the bound (30 s at most):
            // the bound is tight, and a test process starved for a while should not fail it
            // (docs/testing.md, "Waiting in tests").
            var lateness: [Int] = []
            let start = Date()
            while Date().timeIntervalSince(start) < 30 {
                let (_, next) = try Self.hint(String(decoding: try await proxy.get(String(media)).body, as: UTF8.self))
                let held = try await proxy.get("\(media)?_HLS_msn=\(next.msn)&_HLS_part=\(next.index)")
                let late = Date().timeIntervalSince(origin.lowLatency.timeline.publicationTime(of: next))
                #expect(held.status == 200)
                #expect(late >= 0, "answered before \(next) was published")
                let text = String(decoding: held.body, as: UTF8.self)
                #expect(text.contains("/ll/v0/part-\(next.msn).\(next.index).m4s"), "the reload holds the asked part: \(text)")
                lateness.append(Int(late * 1000))
                if late < 0.05 { break }
            }
            #expect(lateness.last! < 50, "answered \(lateness) ms after the part was published")

            // The hinted part, asked for before it exists: held, then the origin's bytes.
            let (uri, part) = try Self.hint(String(decoding: try await proxy.get(String(media)).body, as: UTF8.self))
            #expect(uri.hasPrefix("/~part.v0.n\(part.msn).p\(part.index)/http/"), "rewritten and tagged: \(uri)")
            let through = try await proxy.get(uri)
            #expect(through.status == 200)
            #expect(Date() >= origin.lowLatency.timeline.publicationTime(of: part))
            let direct = try await RawHTTP.get(port: demo.port, "/ll/v0/part-\(part.msn).\(part.index).m4s")
            #expect(through.body == direct.body)
            #expect(through.body.count > 1000)
        }
    }
}
