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
    private var timelines: [TimelineKey: Timeline] = [:]

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

    struct Position {
        /// Position from the first segment; nil on a sliding live window.
        var index: Int?
        /// Start on the media timeline, seconds from the first segment this session saw.
        var mediaTime: Double
    }

    private struct Timeline {
        var positions: [Int: Position] = [:]
        /// First MSN and count of the complete (VOD/EVENT) playlist last learnt: the same again
        /// teaches nothing new, and players reload VOD playlists often.
        var complete: (first: Int, count: Int)?
        static let memory = 4096
        static let behindLiveWindow = 64
    }

    /// What a session needs to remember of one playlist; computed once per distinct upstream body.
    enum Summary: Sendable {
        case multivariant(variants: [VariantFacts], renditions: [Int: RenditionFacts])
        case media(segments: [(msn: Int, index: Int, startTime: Double)], isComplete: Bool, targetDuration: Int? = nil)

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
                    segments: playlist.segments.map { ($0.msn, $0.index, $0.startTime) },
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

    /// Records where the segments of a media playlist sit. VOD and EVENT playlists count `index` from
    /// their first segment; a live window's media times continue from the first version seen.
    private mutating func learn(segments: [(msn: Int, index: Int, startTime: Double)], isComplete: Bool, tag: ResourceTag) {
        let key = TimelineKey(tag)
        if isComplete, let known = timelines[key]?.complete, known.first == segments.first?.msn, known.count == segments.count {
            return
        }
        var timeline = timelines.removeValue(forKey: key) ?? Timeline()  // removed: mutated without a copy
        // Anchor a live window on a segment already known, so media time keeps growing across reloads.
        var offset = 0.0
        if !isComplete, let known = segments.first(where: { timeline.positions[$0.msn] != nil }),
            let position = timeline.positions[known.msn]
        {
            offset = position.mediaTime - known.startTime
        }
        for segment in segments {
            timeline.positions[segment.msn] = Position(
                index: isComplete ? segment.index : nil, mediaTime: offset + segment.startTime)
        }
        timeline.complete = isComplete ? (segments.first?.msn ?? 0, segments.count) : nil
        // A live window slides for ever: keep what a player may still ask for (the window and as
        // much again behind it), not every MSN the session ever saw.
        if !isComplete, let first = segments.first?.msn {
            let oldestKept = first - max(Timeline.behindLiveWindow, segments.count)
            if let oldest = timeline.positions.keys.min(), oldest < oldestKept {
                timeline.positions = timeline.positions.filter { $0.key >= oldestKept }
            }
        }
        if timeline.positions.count > Timeline.memory {
            let keep = timeline.positions.keys.sorted().suffix(Timeline.memory / 2)
            timeline.positions = timeline.positions.filter { keep.contains($0.key) }
        }
        timelines[key] = timeline
    }

    /// MSNs remembered for the media playlist of `tag` (tests).
    func timelineSize(of tag: ResourceTag) -> Int { timelines[TimelineKey(tag)]?.positions.count ?? 0 }

    func position(of tag: ResourceTag) -> Position? {
        guard let msn = tag.msn else { return nil }
        return timelines[TimelineKey(tag)]?.positions[msn]
    }
}
