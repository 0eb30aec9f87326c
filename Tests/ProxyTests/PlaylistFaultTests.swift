import Foundation
import HLS
import Testing
import TestSupport

/// Every playlist action, checked on the text the client is served.
@Suite struct PlaylistFaultTests {
    static func scenario(_ rules: String) -> String {
        #"{"name": "test", "description": "test", "rules": [\#(rules)]}"#
    }

    static func withFixture(
        _ rules: String, clock: ManualChaosClock = ManualChaosClock(),
        _ body: (ProxyHarness, TestOrigin) async throws -> Void
    ) async throws {
        try await TestOrigin.with { origin in
            HLSFixture.install(on: origin)
            try await ProxyHarness.with(upstreamURL: origin.baseURL, rules: [Self.scenario(rules)], clock: clock) { proxy in
                try await body(proxy, origin)
            }
        }
    }

    static func media(_ proxy: ProxyHarness, _ origin: TestOrigin, variant: Int = 0) async throws -> Playlist {
        let response = try await proxy.get("/~media.v\(variant)/http/127.0.0.1:\(origin.port)/v\(variant)/index.m3u8")
        #expect(response.status == 200)
        return try Playlist(string: response.text, strict: true)
    }

    @Test func stripVariantsLeavesAValidMaster() async throws {
        try await Self.withFixture(#"{"id": "strip", "match": {"kind": "master"}, "action": {"stripVariants": {"index": 1}}}"#) { proxy, _ in
            let response = try await proxy.get("/master.m3u8")
            let master = try Playlist(string: response.text, strict: true)
            #expect(master.variants.count == 1)
            #expect(master.variants.first?.bandwidth == 400_000)
            #expect(master.variants.first?.uri.hasPrefix("/~media.v0/") == true)
            #expect(master.renditions.count == 2)
            #expect(response.header("x-hlschaos-fault") == "test/strip")
        }
    }

    @Test func stripRenditionsRemovesTheFrenchAudio() async throws {
        try await Self.withFixture(#"{"id": "nofr", "match": {"kind": "master"}, "action": {"stripRenditions": {"type": "AUDIO", "language": "fr"}}}"#) { proxy, _ in
            let response = try await proxy.get("/master.m3u8")
            let master = try Playlist(string: response.text, strict: true)
            #expect(master.renditions.map(\.language) == ["en"])
            #expect(master.variants.count == 2)
        }
    }

    @Test func gapMarksTheSegmentAndFetchingItFails() async throws {
        let rules = #"""
            {"id": "gap", "match": {"variant": {"index": 0}, "msn": 2}, "action": {"gap": true}},
            {"id": "gone", "match": {"variant": {"index": 1}, "msn": 3}, "action": {"gap": {"status": 410}}}
            """#
        try await Self.withFixture(rules) { proxy, origin in
            _ = try await proxy.get("/master.m3u8")
            let v0 = try await Self.media(proxy, origin, variant: 0)
            #expect(v0.segments.filter(\.gap).map(\.msn) == [2])
            #expect(await proxy.status(HLSFixture.segmentPath(port: origin.port, variant: 0, msn: 2)) == 404)
            #expect(await proxy.status(HLSFixture.segmentPath(port: origin.port, variant: 0, msn: 1)) == 200)
            let v1 = try await Self.media(proxy, origin, variant: 1)
            #expect(v1.segments.filter(\.gap).map(\.msn) == [3])
            #expect(await proxy.status(HLSFixture.segmentPath(port: origin.port, variant: 1, msn: 3)) == 410)
        }
    }

    @Test func removeTakesSegmentsOut() async throws {
        try await Self.withFixture(#"{"id": "rm", "match": {"msn": {"from": 1, "to": 2}}, "action": {"remove": true}}"#) { proxy, origin in
            let media = try await Self.media(proxy, origin)
            // MSNs are positional in HLS; the URIs say which segments are left.
            #expect(media.segments.map { $0.uri.split(separator: "/").last ?? "" } == ["seg0.ts", "seg3.ts", "seg4.ts"])
        }
    }

    @Test func headerChangesSequenceTargetDurationAndEndList() async throws {
        let rules = #"""
            {"id": "shift", "match": {"kind": "media"}, "action": {"sequenceShift": 7, "targetDuration": 9, "endList": "remove"}}
            """#
        try await Self.withFixture(rules) { proxy, origin in
            let media = try await Self.media(proxy, origin)
            #expect(media.mediaSequence == 7)
            #expect(media.targetDuration == 9)
            #expect(!media.endList)
            #expect(media.segments.count == HLSFixture.segmentCount)
        }
    }

    @Test(arguments: ["no-header", "garbage-line", "bad-attribute", "extinf-over-target", "duplicate-version"])
    func malformBreaksTheMediaPlaylistForAStrictParser(kind: String) async throws {
        try await Self.withFixture(#"{"id": "bad", "match": {"kind": "media"}, "action": {"malform": "\#(kind)"}}"#) { proxy, origin in
            let response = try await proxy.get("/~media.v0/http/127.0.0.1:\(origin.port)/v0/index.m3u8")
            #expect(response.status == 200)
            #expect(throws: PlaylistError.self, "\(kind) should not parse strictly:\n\(response.text)") {
                _ = try Playlist(string: response.text, strict: true)
            }
        }
    }

    @Test func malformCutEndsThePlaylistMidLine() async throws {
        try await Self.withFixture(#"{"id": "cut", "match": {"kind": "media", "session": "victim"}, "action": {"malform": "cut"}}"#) { proxy, origin in
            let whole = try await proxy.get("/s/clean/~media.v1/http/127.0.0.1:\(origin.port)/v1/index.m3u8")
            let cut = try await proxy.get("/s/victim/~media.v1/http/127.0.0.1:\(origin.port)/v1/index.m3u8")
            #expect(cut.body.count < whole.body.count * 2 / 3)
            #expect(cut.body.last != UInt8(ascii: "\n"))
            #expect(!cut.text.contains("#EXT-X-ENDLIST"))
        }
    }

    @Test func sessionDataMalformedBreaksOnlyTheSessionDataTag() async throws {
        try await Self.withFixture(#"{"id": "sd", "match": {"kind": "master"}, "action": {"sessionData": "malformed"}}"#) { proxy, _ in
            let text = try await proxy.get("/master.m3u8").text
            let sessionLine = try #require(text.split(separator: "\n").first { $0.hasPrefix("#EXT-X-SESSION-DATA") })
            #expect(!sessionLine.contains("DATA-ID=\"com.example.title\",VALUE=\"Fixture\""))
            let master = try Playlist(string: text)
            #expect(master.variants.count == 2)
        }
    }

    @Test func backupVariantsAddARedundantCopyThatFailsOverOnPrimary404() async throws {
        let rules = #"""
            {"id": "backups", "match": {"kind": "master"}, "action": {"backupVariants": true}},
            {"id": "primary-down", "match": {"kind": "media", "copy": "primary"}, "action": {"status": 404}}
            """#
        try await Self.withFixture(rules) { proxy, origin in
            let response = try await proxy.get("/master.m3u8")
            let master = try Playlist(string: response.text, strict: true)
            #expect(master.variants.count == 4)
            #expect(master.variants[0].attributes == master.variants[2].attributes)
            #expect(master.variants[1].attributes == master.variants[3].attributes)
            #expect(master.variants[2].uri.hasPrefix("/~media.v0.b/"))
            #expect(await proxy.status(master.variants[0].uri) == 404)
            let backup = try await proxy.get(master.variants[2].uri)
            #expect(backup.status == 200)
            let media = try Playlist(string: backup.text, strict: true)
            #expect(media.segments.first?.uri.hasPrefix("/~seg.v0.n0.b/") == true)
        }
    }

    @Test func freezeServesTheVersionSeenBeforeTheWindow() async throws {
        let clock = ManualChaosClock()
        let rules = #"{"id": "stale", "match": {"kind": "media", "after": "10s", "for": "20s"}, "action": {"freeze": true}}"#
        try await Self.withFixture(rules, clock: clock) { proxy, origin in
            let path = "/~media.v0/http/127.0.0.1:\(origin.port)/live.m3u8"
            func publish(_ sequence: Int) {
                origin.route("/live.m3u8", .bytes(body: Array(Self.liveWindow(first: sequence).utf8)))
            }
            func sequence() async -> Int {
                (try? Playlist(string: try await proxy.get(path).text).mediaSequence) ?? -1
            }
            publish(0)
            #expect(await sequence() == 0)
            clock.advance(.seconds(6)); publish(3)
            #expect(await sequence() == 3)
            clock.advance(.seconds(6)); publish(6)   // t = 12 s: inside the window
            #expect(await sequence() == 3)
            clock.advance(.seconds(10)); publish(11)  // t = 22 s
            #expect(await sequence() == 3)
            clock.advance(.seconds(10)); publish(16)  // t = 32 s: the window has closed
            #expect(await sequence() == 16)
        }
    }

    @Test func lagServesTheOriginAsItWasEarlier() async throws {
        let clock = ManualChaosClock()
        try await Self.withFixture(#"{"id": "late", "match": {"kind": "media"}, "action": {"lag": "6s"}}"#, clock: clock) { proxy, origin in
            let path = "/~media.v0/http/127.0.0.1:\(origin.port)/live.m3u8"
            var served: [Int] = []
            for step in 0..<6 {
                origin.route("/live.m3u8", .bytes(body: Array(Self.liveWindow(first: step).utf8)))
                let playlist = try Playlist(string: try await proxy.get(path).text)
                served.append(playlist.mediaSequence)
                clock.advance(.seconds(2))
            }
            // Versions are 2 s apart: 6 s late is three versions behind once history reaches back that far.
            #expect(served.suffix(3) == [2, 3, 4].map { $0 - 2 })
        }
    }

    /// LL-HLS and tokenised CDNs change the query on every reload of the same playlist; the
    /// history that `lag` reads must follow the playlist, not the exact URL.
    @Test func lagFollowsAPlaylistWhoseQueryChangesOnEveryReload() async throws {
        let clock = ManualChaosClock()
        try await Self.withFixture(#"{"id": "late", "match": {"kind": "media"}, "action": {"lag": "6s"}}"#, clock: clock) { proxy, origin in
            var served: [Int] = []
            for step in 0..<6 {
                origin.route("/live.m3u8", .bytes(body: Array(Self.liveWindow(first: step).utf8)))
                let path = "/~media.v0/http/127.0.0.1:\(origin.port)/live.m3u8?_HLS_msn=\(step + 4)&token=t\(step)"
                served.append(try Playlist(string: try await proxy.get(path).text).mediaSequence)
                clock.advance(.seconds(2))
            }
            #expect(served.suffix(3) == [0, 1, 2])
            #expect(proxy.server.control.snapshot().playlistHistories == 1, "one history for one playlist")
        }
    }

    static func liveWindow(first: Int) -> String {
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(first)\n"
        for n in first..<(first + 4) { text += "#EXTINF:2.0,\nlive\(n).ts\n" }
        return text
    }
}
