import Addressing
import Testing

/// A resource of a content-steering pathway carries its PATHWAY-ID in its tag, after a second `~`.
@Suite struct PathwayTagTests {
    @Test func thePathwayComesLastAndParsesBack() throws {
        let tag = ResourceTag(kind: .segment, variant: 4, msn: 42, pathway: "cdn-b.eu_2")
        #expect(tag.description == "~seg.v4.n42~cdn-b.eu_2")
        #expect(ResourceTag(component: "~seg.v4.n42~cdn-b.eu_2") == tag)
        #expect(ResourceTag(component: "~media.v1.b~CDN-A")?.pathway == "CDN-A")
        #expect(ResourceTag(component: "~media.v1.b~CDN-A")?.backup == true)
        let path = try ProxyPath(parsing: "/s/tv/~seg.v4.n42~cdn-b/http/localhost:8080/live/ts/v1/seg-42.ts")
        #expect(path.tag == tag.with(pathway: "cdn-b"))
        #expect(try ProxyPath(parsing: path.target) == path)
    }

    @Test func aTagWithoutAPathwayIsWrittenAsBefore() {
        #expect(ResourceTag(kind: .part, variant: 1, msn: 42, part: 3).description == "~part.v1.n42.p3")
        #expect(ResourceTag(component: "~part.v1.n42.p3")?.pathway == nil)
    }

    @Test func aPathwayIDThatIsNoneIsNotCarried() {
        // rfc8216bis §4.4.6.2: letters, digits, "-", "." and "_"; the tag also keeps it to 64 bytes.
        #expect(ResourceTag(kind: .media, variant: 0, pathway: "cdn a").pathway == nil)
        #expect(ResourceTag(kind: .media, variant: 0, pathway: String(repeating: "x", count: 65)).pathway == nil)
        #expect(ResourceTag(kind: .media, variant: 0, pathway: String(repeating: "x", count: 64)).pathway?.count == 64)
        for bad in ["~media.v0~", "~media.v0~a~b", "~media.v0~a/b", "~media.v0~a%20b"] {
            #expect(ResourceTag(component: Substring(bad)) == nil, "\(bad)")
        }
    }

    @Test func forwardModeCarriesThePathwayInItsQueryParameter() throws {
        let tag = ResourceTag(kind: .segment, variant: 3, msn: 7, pathway: "cdn-b")
        let url = ForwardTag.appending(tag, to: "https://cdn-b.example.com/v0/seg-7.ts?token=1")
        #expect(url == "https://cdn-b.example.com/v0/seg-7.ts?token=1&hlschaos=seg.v3.n7~cdn-b")
        let (kept, parsed) = try ForwardTag.split(url)
        #expect(kept == "https://cdn-b.example.com/v0/seg-7.ts?token=1" && parsed == tag)
    }
}

private extension ResourceTag {
    func with(pathway: String) -> ResourceTag {
        var copy = self
        copy.pathway = pathway
        return copy
    }
}
