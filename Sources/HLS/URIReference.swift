import Foundation

/// What a URI in a playlist points at.
public enum URIKind: String, Sendable, Hashable {
    /// Media playlists referenced from a multivariant playlist.
    case variant, iFrameVariant, rendition
    case segment, part, preloadHint, map, key, renditionReport, dateRangeAsset
    case sessionData, sessionKey, steering
}

/// One URI-bearing place in a playlist, handed to `Playlist.rewriteURIs`.
public struct URIReference: Sendable, Hashable {
    /// The text as written, after `EXT-X-DEFINE` substitution.
    public var original: String
    /// `original` resolved against the playlist URL (RFC 3986); nil when relative without a base.
    public var absoluteString: String?
    public var kind: URIKind
    /// For `.variant` / `.iFrameVariant`: index into `variants` / `iFrameVariants`.
    public var variantIndex: Int?
    /// For `.rendition`.
    public var rendition: Rendition?
    /// For segment, part, map, key and preload hint places in media playlists:
    /// the MSN of the (next) segment it applies to.
    public var msn: Int?
    /// For `.part` and a `PART` preload hint: index of the part within its segment.
    public var partIndex: Int?
    /// For `.variant`, `.iFrameVariant` and `.rendition`: the content-steering pathway it belongs to
    /// (`PATHWAY-ID`; a rendition's is that of the variants using its group, when they agree).
    public var pathway: String?
    /// 1-based line number.
    public var line: Int

    /// For tests of transforms; the playlist builds these itself.
    public init(original: String, absoluteString: String? = nil, kind: URIKind, variantIndex: Int? = nil,
                rendition: Rendition? = nil, msn: Int? = nil, partIndex: Int? = nil, pathway: String? = nil, line: Int = 0) {
        self.original = original
        self.absoluteString = absoluteString
        self.kind = kind
        self.variantIndex = variantIndex
        self.rendition = rendition
        self.msn = msn
        self.partIndex = partIndex
        self.pathway = pathway
        self.line = line
    }

    /// `absoluteString` as a `URL`. Built on demand so that transforms that only need the
    /// string do not pay for URL parsing.
    public var absolute: URL? {
        guard let absoluteString else { return nil }
        return URL(string: absoluteString)
    }
}
