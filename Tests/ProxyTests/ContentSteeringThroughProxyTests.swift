@testable import DemoOrigin
import Foundation
import HLS
import JSON
import Records
import Testing
import TestSupport

/// The demo's content-steering stream through the proxy, over loopback: the two pathways come from
/// two hosts and keep their PATHWAY-ID in every URI the proxy writes, so rules single out a
/// pathway and records name it; the steering manifest's RELOAD-URI comes back through the proxy,
/// damaged or not. Each rule names a session; the same requests in a session without it show what
/// the fault changed.
@Suite struct ContentSteeringThroughProxyTests {
    static let rules = #"""
    {"name": "steer", "description": "steering faults, one session each", "rules": [
      {"id": "cdn-a-down", "match": {"session": "down", "kind": ["media", "segment"], "pathway": "cdn-a"}, "action": {"status": 503}},
      {"id": "only-b", "match": {"session": "damaged", "kind": "steering"}, "action": {"steering": {"ttl": 1, "priority": ["cdn-b"], "reloadURI": "elsewhere.json"}}},
      {"id": "cut", "match": {"session": "cut"}, "action": {"steering": {"malformed": true}}}
    ]}
    """#

    /// The proxy in front of a fresh demo origin, and the origin's port.
    static func withProxy(_ body: (ProxyHarness, Int) async throws -> Void) async throws {
        try await ProxyHarness.withDemo(rules: [rules]) { proxy, _ in try await body(proxy, try #require(proxy.demo).port) }
    }

    static func master(_ proxy: ProxyHarness, session: String) async throws -> Playlist {
        let response = try await proxy.get("/s/\(session)/steering/ts/master.m3u8")
        #expect(response.status == 200)
        return try Playlist(string: String(decoding: response.body, as: UTF8.self))
    }

    @Test func pathwaysComeFromTwoHostsAndKeepTheirIDInEveryURI() async throws {
        try await Self.withProxy { proxy, port in
            let master = try await Self.master(proxy, session: "plain")
            #expect(master.variants.count == 6)
            #expect(master.variants.map(\.pathwayID) == ["cdn-a", "cdn-a", "cdn-a", "cdn-b", "cdn-b", "cdn-b"])
            let a = try #require(master.variants.first), b = try #require(master.variants.last)
            #expect(a.uri.hasPrefix("/s/plain/~media.v0~cdn-a/http/127.0.0.1:\(port)/live/ts/v0/"), "\(a.uri)")
            #expect(b.uri.hasPrefix("/s/plain/~media.v5~cdn-b/http/localhost:\(port)/live/ts/v2/"), "\(b.uri)")
            let audioB = try #require(master.renditions.first { $0.groupID == "aud-cdn-b" }?.uri)
            #expect(audioB.contains("~cdn-b/http/localhost:\(port)/"), "a rendition takes the pathway of the variants using its group: \(audioB)")

            let media = try Playlist(string: String(decoding: try await proxy.get(b.uri).body, as: UTF8.self))
            let segment = try #require(media.segments.last?.uri)
            #expect(segment.contains("~cdn-b/http/localhost:\(port)/"), "\(segment)")
            let bytes = try await proxy.get(segment)
            #expect(bytes.status == 200 && bytes.body.first == 0x47, "an MPEG-TS segment from the second host")

            func records() -> [RequestRecord] { proxy.server.control.records(session: "plain") }
            _ = await eventually { records().contains { $0.kind == .segment } }
            let recorded = try #require(records().first { $0.kind == .segment })
            #expect(recorded.pathway == "cdn-b" && recorded.variant == 5)
            #expect(recorded.upstream?.url.hasPrefix("http://localhost:\(port)/live/ts/v2/seg-") == true)
            #expect(RecordLine.resource(recorded).hasSuffix("@cdn-b"))
        }
    }

    @Test func aRuleOnAPathwayFaultsItsResourcesAndNotTheOtherPathways() async throws {
        try await Self.withProxy { proxy, _ in
            let master = try await Self.master(proxy, session: "down")
            for variant in master.variants {
                let status = try await proxy.get(variant.uri).status
                #expect(status == (variant.pathwayID == "cdn-a" ? 503 : 200), "\(variant.uri)")
            }
            let audio = try #require(master.renditions.first { $0.groupID == "aud-cdn-a" && $0.language == "en" }?.uri)
            #expect(try await proxy.get(audio).status == 503, "renditions of the pathway too")
            #expect(try await proxy.get("/s/down/steering/ts/master.m3u8").status == 200, "the master belongs to no pathway")
        }
    }

    @Test func theSteeringManifestReloadsThroughTheProxyAndCarriesItsDamage() async throws {
        try await Self.withProxy { proxy, port in
            let plainMaster = try await Self.master(proxy, session: "plain")
            let server = try #require(plainMaster.contentSteering?.serverURI)
            #expect(server == "/s/plain/~steering/http/127.0.0.1:\(port)/steering/ts/manifest.json")
            let plain = try JSONValue.parse(Array(try await proxy.get(server + "?_HLS_pathway=cdn-a&_HLS_throughput=500000").body))
            #expect(plain.member("RELOAD-URI") == .string(server), "RELOAD-URI resolved against the manifest and written on the proxy")
            #expect(plain.member("TTL") == .int(10))
            #expect(plain.member("PATHWAY-PRIORITY") == .array([.string("cdn-a"), .string("cdn-b")]))

            let damagedServer = try #require(try await Self.master(proxy, session: "damaged").contentSteering?.serverURI)
            let damaged = try JSONValue.parse(Array(try await proxy.get(damagedServer).body))
            #expect(damaged.member("TTL") == .int(1))
            #expect(damaged.member("PATHWAY-PRIORITY") == .array([.string("cdn-b")]))
            let reload = try #require({ if case .string(let uri)? = damaged.member("RELOAD-URI") { uri } else { nil } }())
            #expect(reload == "/s/damaged/~steering/http/127.0.0.1:\(port)/steering/ts/elsewhere.json")
            #expect(try await proxy.get(reload).status == 404, "the origin has no such manifest")

            let cutServer = try #require(try await Self.master(proxy, session: "cut").contentSteering?.serverURI)
            let cut = try await proxy.get(cutServer)
            #expect(cut.status == 200)
            #expect((try? JSONValue.parse(Array(cut.body))) == nil, "no JSON parser reads a malformed manifest")

            func records() -> [RequestRecord] { proxy.server.control.records(session: "damaged").filter { $0.kind == .steering } }
            _ = await eventually { records().count >= 2 }
            #expect(records().first?.actions.map(\.kind) == [.content("steering")])
            #expect(records().map(\.status) == [200, 404])
        }
    }
}
