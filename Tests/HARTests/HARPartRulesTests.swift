import Foundation
import HAR
import Testing

/// LL-HLS parts in a HAR: pinned by the `EXT-X-PART` lines (and the preload hint) of the media
/// playlists the HAR carries, or by hlschaos's `_resource`, and written as `kind: part` rules.
@Suite struct HARPartRulesTests {
    /// An LL media playlist: segments 100–101 complete, parts 0–1 of 102 listed, part 2 hinted.
    static let llMedia = """
        #EXTM3U
        #EXT-X-VERSION:9
        #EXT-X-TARGETDURATION:2
        #EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=1.2
        #EXT-X-PART-INF:PART-TARGET=0.4
        #EXT-X-MEDIA-SEQUENCE:100
        #EXTINF:2.0,
        seg100.m4s
        #EXT-X-PART:DURATION=0.4,URI="part101.0.m4s",INDEPENDENT=YES
        #EXT-X-PART:DURATION=0.4,URI="part101.1.m4s"
        #EXTINF:2.0,
        seg101.m4s
        #EXT-X-PART:DURATION=0.4,URI="part102.0.m4s",INDEPENDENT=YES
        #EXT-X-PART:DURATION=0.4,URI="part102.1.m4s"
        #EXT-X-PRELOAD-HINT:TYPE=PART,URI="part102.2.m4s"

        """

    @Test func aFailedPartBecomesARuleOnItsSegmentAndIndex() throws {
        var har = HARFixture()
        let origin = HARFixture.origin
        har.add("\(origin)/master.m3u8", at: 0, body: HARFixture.master)
        har.add("\(origin)/v2/index.m3u8", at: 0.1, body: Self.llMedia)
        har.add("\(origin)/v2/part101.1.m4s", at: 0.2, size: 20_000)
        let failed = har.add("\(origin)/v2/part102.1.m4s", at: 0.3, status: 503, body: "busy")
        har.add("\(origin)/v2/part102.1.m4s", at: 1.3, size: 20_000)
        let hinted = har.add("\(origin)/v2/part102.2.m4s", at: 1.4, status: 404, body: "never")
        let imported = try HARImport.analyze(HARReader.read(har.json, file: "ll.har"), file: "ll.har")
        #expect(imported.classifications[failed].pinning == .playlists)
        let rules = try HARImportRulesTests.rules(imported)
        #expect(imported.rules.map(\.id) == ["part-v2-msn102-part1-503-first-request", "part-v2-msn102-part2-404"], "\(imported.rules.map(\.id))")
        #expect(HARImportRulesTests.same(rules["part-v2-msn102-part1-503-first-request"]?["match"],
                                         ["kind": "part", "variant": ["index": 2], "msn": 102, "part": 1, "requests": 1]))
        #expect(HARImportRulesTests.same(rules["part-v2-msn102-part2-404"]?["match"], ["kind": "part", "variant": ["index": 2], "msn": 102, "part": 2]))
        #expect((rules["part-v2-msn102-part1-503-first-request"]?["description"] as? String)?.contains("part 1 of segment MSN 102 of variant 2") == true)
        #expect(imported.classifications[hinted].target?.part == 2, "the preload hint names part 2 of 102")
    }

    @Test func hlschaosResourcePinsAPart() throws {
        var har = HARFixture()
        let tagged = har.add("http://proxy:8080/s/tv/x.m4s", at: 3, status: 504,
                             extra: ["_resource": ["kind": "part", "variant": 1, "rendition": NSNull(), "msn": 9, "part": 3, "copy": NSNull()]])
        let imported = try HARImport.analyze(HARReader.read(har.json, file: "t.har"), file: "t.har")
        #expect(imported.classifications[tagged].target?.part == 3)
        let rules = try HARImportRulesTests.rules(imported)
        #expect(HARImportRulesTests.same(rules.values.first?["match"], ["kind": "part", "variant": ["index": 1], "msn": 9, "part": 3]), "\(rules)")
    }
}
