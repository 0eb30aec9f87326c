@testable import DemoOrigin
import Foundation
import HLS
import JSON
import Testing

/// The demo's content-steering stream: the live master on two pathways, and the manifest ranking them.
@Suite struct SteeringDemoTests {
    let origin: DemoOrigin

    init() throws { origin = try DemoOrigin() }

    func get(_ path: String, host: String? = "127.0.0.1:8000") -> DemoResponse {
        origin.respond(method: "GET", path: path, headers: host.map { [("Host", $0)] } ?? [])
    }

    @Test func theMasterOffersEveryVariantAndRenditionOnTwoPathways() throws {
        let response = get("/steering/ts/master.m3u8")
        #expect(response.status == 200)
        let master = try Playlist(string: String(decoding: response.body, as: UTF8.self), url: URL(string: "http://127.0.0.1:8000/steering/ts/master.m3u8"))
        #expect(master.contentSteering == ContentSteering(serverURI: "manifest.json", pathwayID: "cdn-a"))
        #expect(master.variants.count == 6 && master.iFrameVariants.isEmpty)
        for (offset, variant) in master.variants.enumerated() {
            let pathway = offset < 3 ? "cdn-a" : "cdn-b"
            #expect(variant.pathwayID == pathway)
            #expect(variant.attributes["STABLE-VARIANT-ID"] == "v\(offset % 3)")
            #expect(variant.audio == "aud-\(pathway)" && variant.subtitles == "subs-\(pathway)")
            #expect(variant.bandwidth == master.variants[offset % 3].bandwidth, "the pathways carry the same ladder")
        }
        #expect(master.variants[0].uri == "../../live/ts/v0/index.m3u8")
        #expect(master.variants[5].uri == "http://localhost:8000/live/ts/v2/index.m3u8")
        #expect(master.renditions.filter { $0.groupID == "aud-cdn-b" }.compactMap(\.uri)
            == ["http://localhost:8000/live/ts/audio/en/index.m3u8", "http://localhost:8000/live/ts/audio/fr/index.m3u8"])
        #expect(master.renditions.map { $0.pathway(among: master.variants) } == ["cdn-a", "cdn-a", "cdn-a", "cdn-b", "cdn-b", "cdn-b"])
    }

    @Test func theSecondPathwayIsTheOtherLoopbackNameOfThePort() {
        #expect(SteeringDemo.otherLoopbackName(of: "127.0.0.1:8000") == "localhost:8000")
        #expect(SteeringDemo.otherLoopbackName(of: "LOCALHOST:8000") == "127.0.0.1:8000")
        #expect(SteeringDemo.otherLoopbackName(of: "[::1]") == "localhost")
        #expect(SteeringDemo.otherLoopbackName(of: "demo.example") == "localhost")
        #expect(String(decoding: get("/steering/fmp4/master.m3u8", host: "localhost:9").body, as: UTF8.self)
            .contains("http://127.0.0.1:9/live/fmp4/v0/index.m3u8"))
    }

    @Test func withoutAHostTheMasterCannotNameItsSecondPathway() {
        let response = get("/steering/ts/master.m3u8", host: nil)
        #expect(response.status == 400)
        #expect(String(decoding: response.body, as: UTF8.self).contains("Host header"))
    }

    @Test func theManifestRanksBothPathways() throws {
        let response = get("/steering/ts/manifest.json?_HLS_pathway=cdn-a&_HLS_throughput=900000")
        #expect(response.status == 200)
        #expect(response.headers.contains { $0.0 == "content-type" && $0.1 == "application/json" })
        let manifest = try JSONValue.parse(Array(response.body))
        #expect(manifest.member("VERSION") == .int(1) && manifest.member("TTL") == .int(10))
        #expect(manifest.member("RELOAD-URI") == .string("manifest.json"))
        #expect(manifest.member("PATHWAY-PRIORITY") == .array([.string("cdn-a"), .string("cdn-b")]))
    }

    @Test func otherPathsUnderSteeringAreNotFound() {
        #expect(get("/steering/byterange/master.m3u8").status == 404)
        #expect(get("/steering/ts/v0/index.m3u8").status == 404)
        #expect(get("/steering/ts").status == 404)
    }
}
