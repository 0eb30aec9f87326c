import Addressing
@testable import Proxy
import Testing

@Suite struct SessionCatalogTests {
    /// A live window slides for hours: the catalog keeps the window and what is just behind it.
    @Test func aSlidingLiveWindowKeepsABoundedTimeline() {
        var catalog = SessionCatalog()
        let tag = ResourceTag(kind: .media, variant: 1)
        for first in 0..<5000 {
            let window = (first..<(first + 6)).map { (msn: $0, index: $0 - first, startTime: Double($0 - first) * 2) }
            catalog.learn(.media(segments: window, isComplete: false), tag: tag)
        }
        #expect(catalog.position(of: ResourceTag(kind: .segment, variant: 1, msn: 5004)) != nil)
        #expect(catalog.position(of: ResourceTag(kind: .segment, variant: 1, msn: 4999 - 64)) != nil, "just behind the window")
        #expect(catalog.position(of: ResourceTag(kind: .segment, variant: 1, msn: 4000)) == nil)
        #expect(catalog.timelineSize(of: tag) <= 64 + 6)
    }
}
