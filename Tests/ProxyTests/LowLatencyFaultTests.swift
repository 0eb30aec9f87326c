@testable import DemoOrigin
import Foundation
import HLS
import Records
import Testing
import TestSupport

/// LL-HLS faults on the LL demo stream through the proxy: rules that single out parts by index
/// and blocking reloads, and `ignoreDirectives`. Each rule names a session, and the same requests
/// in a session without it show what the fault changed. Nothing here is judged by time: a
/// reload asks for a part two seconds ahead, and what it comes back with says whether it was held.
@Suite struct LowLatencyFaultTests {
    static let rules = #"""
    {"name": "ll", "description": "LL faults, one session each", "rules": [
      {"id": "first-parts-404", "match": {"session": "parts", "kind": "part", "part": 0}, "action": {"status": 404}},
      {"id": "blocking-503", "match": {"session": "b503", "blocking": true}, "action": {"status": 503}},
      {"id": "unblocked", "match": {"session": "ignore", "kind": "media", "blocking": true}, "action": {"ignoreDirectives": true}},
      {"id": "hint-gone", "match": {"session": "hint"}, "action": {"lowLatency": "hint-never-published"}}
    ]}
    """#

    static func withProxy(_ body: (ProxyHarness, DemoOrigin) async throws -> Void) async throws {
        try await ProxyHarness.withDemo(rules: [rules], body)
    }

    /// The session's rewritten media playlist URI of variant 0, and the part `ahead` parts after the
    /// hinted one (five: about two seconds ahead, within the origin's Advance Part Limit).
    static func mediaAndPartAhead(_ proxy: ProxyHarness, session: String, origin: DemoOrigin, ahead: Int = 5) async throws -> (String, PartPosition) {
        let master = String(decoding: try await proxy.get("/s/\(session)/ll/master.m3u8").body, as: UTF8.self)
        let media = try #require(master.split(separator: "\n").first { $0.contains("/~media.v0/") }.map(String.init))
        let (_, hinted) = try LowLatencyThroughProxyTests.hint(String(decoding: try await proxy.get(media).body, as: UTF8.self))
        let timeline = origin.lowLatency.timeline
        return (media, timeline.position(ofOrdinal: timeline.ordinal(of: hinted) + ahead))
    }

    @Test func partsAreTargetedByIndexAndRecordedAsParts() async throws {
        try await Self.withProxy { proxy, origin in
            for session in ["parts", "plain"] {
                let (media, _) = try await Self.mediaAndPartAhead(proxy, session: session, origin: origin)
                let playlist = try Playlist(string: String(decoding: try await proxy.get(media).body, as: UTF8.self))
                let published = playlist.segments.flatMap(\.parts).map(\.uri)
                let first = try #require(published.first { $0.hasSuffix(".0.m4s") })
                let second = try #require(published.first { $0.hasSuffix(".1.m4s") })
                #expect(try await proxy.get(first).status == (session == "parts" ? 404 : 200), "\(session) \(first)")
                #expect(try await proxy.get(second).status == 200, "\(session) \(second)")
            }
            // A record is emitted when its response ends, which can be after the client has it.
            func parts() -> [RequestRecord] { proxy.server.control.records(session: "parts").filter { $0.kind == .part } }
            _ = await eventually { parts().count >= 2 }
            let parts = parts()
            #expect(parts.count == 2)
            #expect(parts.map(\.part) == [0, 1] && parts.allSatisfy { $0.msn != nil && $0.variant == 0 })
            #expect(parts.map(\.status) == [404, 200])
            #expect(parts.first?.matchedRules == ["ll/first-parts-404"])
        }
    }

    @Test func blockingReloadsAreTargetedApartFromOtherReloads() async throws {
        try await Self.withProxy { proxy, origin in
            let (media, ahead) = try await Self.mediaAndPartAhead(proxy, session: "b503", origin: origin)
            let blocking = try await proxy.get("\(media)?_HLS_msn=\(ahead.msn)&_HLS_part=\(ahead.index)")
            #expect(blocking.status == 503)
            #expect(blocking.header("x-hlschaos-fault") == "ll/blocking-503")
            #expect(try await proxy.get(media).status == 200, "a reload without _HLS_msn is not a blocking reload")
            #expect(try await proxy.get("\(media)?_HLS_skip=YES").status == 200, "nor is a delta update alone")
        }
    }

    /// The damage is applied to the rewritten playlist, and the renamed hint still goes through
    /// the proxy, tagged as a part, to the origin, which has no such file.
    @Test func aHintNeverPublishedIsAskedOfTheOriginAndAnswers404() async throws {
        try await Self.withProxy { proxy, _ in
            let master = String(decoding: try await proxy.get("/s/hint/ll/master.m3u8").body, as: UTF8.self)
            let media = try #require(master.split(separator: "\n").first { $0.contains("/~media.v0/") }.map(String.init))
            let playlist = try Playlist(string: String(decoding: try await proxy.get(media).body, as: UTF8.self))
            let hint = try #require(playlist.preloadHints.first?.uri)
            #expect(hint.hasPrefix("/s/hint/~part.v0.") && hint.contains("/ll/v0/never-part-"), "\(hint)")
            let answer = try await proxy.get(hint)
            #expect(answer.status == 404)
            _ = await eventually { proxy.server.control.records(session: "hint").contains { $0.path == hint } }
            let record = try #require(proxy.server.control.records(session: "hint").first { $0.path == hint })
            #expect(record.kind == .part && record.upstream?.status == 404)
        }
    }

    @Test func ignoredDirectivesAreAnsweredAtOnceWithoutTheAskedPart() async throws {
        try await Self.withProxy { proxy, origin in
            var ignoredTarget = ""
            for session in ["ignore", "plain"] {
                // The origin never sees the ignored session's directives, so it can ask 10 s ahead: a
                // test process starved for seconds still asks before that part exists.
                let (media, ahead) = try await Self.mediaAndPartAhead(proxy, session: session, origin: origin, ahead: session == "ignore" ? 25 : 5)
                let target = "\(media)?_HLS_msn=\(ahead.msn)&_HLS_part=\(ahead.index)&_HLS_skip=YES"
                if session == "ignore" { ignoredTarget = target }
                let reload = try await proxy.get(target)
                #expect(reload.status == 200)
                let playlist = try Playlist(string: String(decoding: reload.body, as: UTF8.self))
                let listed = playlist.segments.flatMap(\.parts).map(\.uri) + playlist.trailingParts.map(\.uri)
                let asked = "/ll/v0/part-\(ahead.msn).\(ahead.index).m4s"
                if session == "ignore" {
                    #expect(!listed.contains { $0.hasSuffix(asked) }, "answered before \(asked) existed")
                    #expect(playlist.skip == nil, "_HLS_skip is dropped too: a full playlist")
                } else {
                    #expect(listed.contains { $0.hasSuffix(asked) }, "held until \(asked) was published")
                    #expect(playlist.skip != nil)
                }
            }
            _ = await eventually { proxy.server.control.records(session: "ignore").contains { $0.path == ignoredTarget } }
            let ignored = try #require(proxy.server.control.records(session: "ignore").first { $0.path == ignoredTarget })
            #expect(ignored.actions.map(\.kind) == [.content("ignoreDirectives")])
            #expect(ignored.path.contains("_HLS_msn="), "the record keeps what the device asked")
            #expect(ignored.upstream?.url.hasSuffix("/ll/v0/index.m3u8") == true,
                    "the origin was asked without directives: \(ignored.upstream?.url ?? "")")
        }
    }
}
