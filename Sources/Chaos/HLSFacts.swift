import Addressing
import HLS

/// Builds match facts from the HLS model, so the proxy and playlist surgery agree on them.
extension VariantFacts {
    /// Facts for every variant of a multivariant playlist; highest/lowest by BANDWIDTH.
    /// `name` is the variant's NAME attribute if it has one (not standard; some packagers write it).
    public static func all(in master: Playlist) -> [VariantFacts] {
        all(master.variants)
    }

    public static func all(_ variants: [Variant]) -> [VariantFacts] {
        let highest = variants.map(\.bandwidth).max()
        let lowest = variants.map(\.bandwidth).min()
        return variants.map { variant in
            VariantFacts(index: variant.index, bandwidth: variant.bandwidth, resolution: variant.resolution,
                         name: variant.attributes["NAME"], isHighest: variant.bandwidth == highest,
                         isLowest: variant.bandwidth == lowest)
        }
    }
}

extension RenditionFacts {
    public init(_ rendition: Rendition) {
        self.init(type: rendition.type, language: rendition.language, name: rendition.name)
    }
}

/// Where a segment sits for `index` and `time`: only meaningful when the playlist starts at the
/// beginning of the presentation (VOD or EVENT, or ended); nil on a sliding live window.
public enum SegmentPosition {
    public static func startsAtBeginning(_ playlist: Playlist) -> Bool {
        playlist.playlistType != nil || playlist.endList
    }

    public static func facts(for segment: Segment, in playlist: Playlist) -> (index: Int?, mediaTime: Double?) {
        startsAtBeginning(playlist) ? (segment.index, segment.startTime) : (nil, nil)
    }

    /// Fills msn, index and mediaTime of `facts` for a segment of `playlist`.
    public static func fill(_ facts: inout RequestFacts, segment: Segment, in playlist: Playlist) {
        facts.msn = segment.msn
        (facts.index, facts.mediaTime) = self.facts(for: segment, in: playlist)
    }
}
