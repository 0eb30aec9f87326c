import HLS

/// What a URI found in a playlist names, by the place it was found in: the one table from HLS's
/// URI places to resource kinds. The proxy tags rewritten URIs with it (`PlaylistRewriter`), HAR
/// import pins entries with it (`HARTargets`), the recorder names what it fetches with it, and
/// rules see the kinds it gives. It lives here, not in HLS (which knows playlists, not the rule
/// schema's kinds) nor in Chaos (the recorder has no rules): Addressing already says what a path,
/// a content type or a body says a resource is (`ResourceGuess`); this is what a playlist says.
extension ResourceTag.Kind {
    public init(_ place: URIPlaceFacts) {
        switch place.kind {
        case .variant, .iFrameVariant, .rendition, .renditionReport: self = .media
        case .segment: self = .segment
        case .part: self = .part
        // A PART hint has the index of the part it names; the other type, TYPE=MAP, names the init
        // section of the segment to come (rfc8216bis 4.4.5.3).
        case .preloadHint: self = place.partIndex == nil ? .initSection : .part
        case .map: self = .initSection
        case .key, .sessionKey: self = .key
        case .sessionData: self = .sessionData
        case .steering: self = .steering
        case .dateRangeAsset: self = .asset
        }
    }
}

extension ResourceKind {
    /// The kind of request a URI found in a playlist produces (`ResourceTag.Kind(place)`); nil for
    /// places that are not resources of the playlist's own stream: a rendition report (it reports
    /// on another rendition's playlist) and an interstitial's asset.
    public init?(_ place: URIPlaceFacts) {
        switch place.kind {
        case .renditionReport, .dateRangeAsset: return nil
        default: self = ResourceTag.Kind(place).resourceKind
        }
    }
}
