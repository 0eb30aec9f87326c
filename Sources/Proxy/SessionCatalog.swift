import Addressing
import Chaos
import HLS

/// What a session has learnt from the playlists it was served, so that a later request that only
/// carries a tag (`~seg.v2.n42`) can be matched on bandwidth, resolution, language, segment index and
/// media time.
struct SessionCatalog: Sendable {
    /// Variants of the last multivariant playlist, by original index (before any stripping).
    private(set) var variants: [Int: VariantFacts] = [:]
    /// Renditions of the last multivariant playlist, by index.
    private(set) var renditions: [Int: RenditionFacts] = [:]
    /// EXT-X-TARGETDURATION of the media playlist learnt last.
    private(set) var targetDuration: Int?
    /// The newest MSN each variant's media playlist listed.
    private(set) var lastMSN: [Int: Int] = [:]
    /// Per media playlist (variant, rendition or I-frame playlist): where each MSN sits.
    private var timelines: [TimelineKey: MediaTimeline] = [:]

    struct TimelineKey: Hashable {
        var variant: Int?
        var rendition: Int?
        var iFrameVariant: Int?
        init(_ tag: ResourceTag) {
            variant = tag.variant
            rendition = tag.rendition
            iFrameVariant = tag.iFrameVariant
        }
    }

    typealias Position = MediaTimeline.Position

    /// What a session needs to remember of one playlist; computed once per distinct upstream body.
    enum Summary: Sendable {
        case multivariant(variants: [VariantFacts], renditions: [Int: RenditionFacts])
        case media(segments: [(msn: Int, index: Int, startTime: Double)], isComplete: Bool, targetDuration: Int? = nil)

        init(_ rewrite: OnePassMediaRewrite) {
            self = .media(
                segments: rewrite.segmentTimes, isComplete: rewrite.playlistType != nil || rewrite.endList,
                targetDuration: rewrite.targetDuration)
        }

        init(_ playlist: Playlist) {
            if playlist.kind == .multivariant {
                let bandwidths = playlist.variants.map(\.bandwidth)
                let highest = bandwidths.max(), lowest = bandwidths.min()
                let variants = playlist.variants.map { variant in
                    VariantFacts(
                        index: variant.index, bandwidth: variant.bandwidth, resolution: variant.resolution,
                        name: variant.attributes["NAME"] ?? variant.attributes["STABLE-VARIANT-ID"],
                        isHighest: variant.bandwidth == highest, isLowest: variant.bandwidth == lowest)
                }
                var renditions: [Int: RenditionFacts] = [:]
                for rendition in playlist.renditions {
                    renditions[rendition.index] = RenditionFacts(type: rendition.type, language: rendition.language, name: rendition.name)
                }
                self = .multivariant(variants: variants, renditions: renditions)
            } else {
                self = .media(
                    segments: playlist.segmentTimes,
                    isComplete: playlist.playlistType != nil || playlist.endList, targetDuration: playlist.targetDuration)
            }
        }
    }

    mutating func learn(_ summary: Summary, tag: ResourceTag) {
        switch summary {
        case .multivariant(let variants, let renditions):
            self.variants = Dictionary(variants.map { ($0.index, $0) }, uniquingKeysWith: { first, _ in first })
            self.renditions = renditions
        case .media(let segments, let isComplete, let targetDuration):
            if let targetDuration { self.targetDuration = targetDuration }
            if let last = segments.last?.msn, let variant = tag.variant { lastMSN[variant] = last }
            learn(segments: segments, isComplete: isComplete, tag: tag)
        }
    }

    private mutating func learn(segments: [MediaTimeline.Segment], isComplete: Bool, tag: ResourceTag) {
        let key = TimelineKey(tag)
        var timeline = timelines.removeValue(forKey: key) ?? MediaTimeline()  // removed: mutated without a copy
        timeline.learn(segments, isComplete: isComplete)
        timelines[key] = timeline
    }

    /// MSNs remembered for the media playlist of `tag` (tests).
    func timelineSize(of tag: ResourceTag) -> Int { timelines[TimelineKey(tag)]?.count ?? 0 }

    func position(of tag: ResourceTag) -> Position? {
        guard let msn = tag.msn else { return nil }
        return timelines[TimelineKey(tag)]?.position(of: msn)
    }
}
