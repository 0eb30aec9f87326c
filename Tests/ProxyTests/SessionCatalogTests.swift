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

    private static func window(_ msns: Range<Int>, duration: Double = 2) -> [MediaTimeline.Segment] {
        msns.map { (msn: $0, index: $0 - msns.lowerBound, startTime: Double($0 - msns.lowerBound) * duration) }
    }

    /// Each reload of a live window lists start times from its own first segment; the catalog keeps
    /// one media timeline across reloads, anchored on a segment both versions list.
    @Test func aLiveWindowsMediaTimeKeepsGrowingAcrossReloads() {
        var catalog = SessionCatalog()
        let tag = ResourceTag(kind: .media, variant: 0)
        catalog.learn(.media(segments: Self.window(100..<106), isComplete: false), tag: tag)
        catalog.learn(.media(segments: Self.window(100..<106), isComplete: false), tag: tag)  // unchanged reload
        catalog.learn(.media(segments: Self.window(102..<108), isComplete: false), tag: tag)
        let segment = { (msn: Int) in catalog.position(of: ResourceTag(kind: .segment, variant: 0, msn: msn)) }
        #expect(segment(100) == .init(index: nil, mediaTime: 0))
        #expect(segment(103) == .init(index: nil, mediaTime: 6))
        #expect(segment(107) == .init(index: nil, mediaTime: 14), "a new segment continues the timeline")
        #expect(segment(108) == nil)
        #expect(catalog.timelineSize(of: tag) == 8)
    }

    /// A window that jumps ahead (an origin restart, a long stall) shares nothing with what is known:
    /// its times start again from its own first segment, and the segments just behind it stay known.
    @Test func aLiveWindowThatJumpsAheadStartsItsTimesAgain() {
        var catalog = SessionCatalog()
        let tag = ResourceTag(kind: .media, variant: 0)
        catalog.learn(.media(segments: Self.window(100..<106), isComplete: false), tag: tag)
        catalog.learn(.media(segments: Self.window(120..<126), isComplete: false), tag: tag)
        let segment = { (msn: Int) in catalog.position(of: ResourceTag(kind: .segment, variant: 0, msn: msn)) }
        #expect(segment(120) == .init(index: nil, mediaTime: 0))
        #expect(segment(104) == .init(index: nil, mediaTime: 8), "64 segments behind the window are kept")
        #expect(segment(110) == nil, "never listed")
        // An older version served again (a lagged playlist) is learnt into the same run.
        catalog.learn(.media(segments: Self.window(118..<124), isComplete: false), tag: tag)
        #expect(segment(118) == .init(index: nil, mediaTime: -4))
        #expect(segment(125) == .init(index: nil, mediaTime: 10))
    }

    /// A VOD playlist counts indexes from its first segment; a different one under the same variant
    /// replaces it whole.
    @Test func aCompletePlaylistIsLearntWhole() {
        var catalog = SessionCatalog()
        let tag = ResourceTag(kind: .media, variant: 2)
        catalog.learn(.media(segments: Self.window(0..<10, duration: 4), isComplete: true), tag: tag)
        #expect(catalog.position(of: ResourceTag(kind: .segment, variant: 2, msn: 9)) == .init(index: 9, mediaTime: 36))
        catalog.learn(.media(segments: Self.window(5..<8, duration: 6), isComplete: true), tag: tag)
        #expect(catalog.position(of: ResourceTag(kind: .segment, variant: 2, msn: 6)) == .init(index: 1, mediaTime: 6))
        #expect(catalog.position(of: ResourceTag(kind: .segment, variant: 2, msn: 9)) == nil)
        #expect(catalog.timelineSize(of: tag) == 3)
    }
}
