import Foundation

/// What a URI in a playlist points at.
public enum URIKind: String, Sendable, Hashable {
    /// Media playlists referenced from a multivariant playlist.
    case variant, iFrameVariant, rendition
    case segment, part, preloadHint, map, key, renditionReport, dateRangeAsset
    case sessionData, sessionKey, steering
}

/// What a URI-bearing place is, without its text: what the streaming rewrite
/// (`Playlist.bytesRewritingURIs(rewrittenAt:writing:)`) hands its writer with the URI's bytes.
public struct URIPlaceFacts: Sendable, Hashable {
    public var kind: URIKind
    /// For `.variant` / `.iFrameVariant`: index into `variants` / `iFrameVariants`.
    public var variantIndex: Int?
    /// For `.rendition`: index into `renditions`.
    public var renditionIndex: Int?
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

    public init(kind: URIKind, variantIndex: Int? = nil, renditionIndex: Int? = nil, msn: Int? = nil,
                partIndex: Int? = nil, pathway: String? = nil, line: Int = 0) {
        self.kind = kind
        self.variantIndex = variantIndex
        self.renditionIndex = renditionIndex
        self.msn = msn
        self.partIndex = partIndex
        self.pathway = pathway
        self.line = line
    }
}

/// One URI-bearing place in a playlist, handed to `Playlist.rewriteURIs`: its facts and its text.
public struct URIReference: Sendable, Hashable {
    public var facts: URIPlaceFacts
    /// The text as written, after `EXT-X-DEFINE` substitution.
    public var original: String
    /// `original` resolved against the playlist URL (RFC 3986); nil when relative without a base.
    public var absoluteString: String?
    /// For `.rendition`.
    public var rendition: Rendition?

    public var kind: URIKind {
        get { facts.kind }
        set { facts.kind = newValue }
    }
    public var variantIndex: Int? {
        get { facts.variantIndex }
        set { facts.variantIndex = newValue }
    }
    public var msn: Int? {
        get { facts.msn }
        set { facts.msn = newValue }
    }
    public var partIndex: Int? {
        get { facts.partIndex }
        set { facts.partIndex = newValue }
    }
    public var pathway: String? {
        get { facts.pathway }
        set { facts.pathway = newValue }
    }
    public var line: Int {
        get { facts.line }
        set { facts.line = newValue }
    }

    /// For tests of transforms; the playlist builds these itself.
    public init(original: String, absoluteString: String? = nil, kind: URIKind, variantIndex: Int? = nil,
                rendition: Rendition? = nil, msn: Int? = nil, partIndex: Int? = nil, pathway: String? = nil, line: Int = 0) {
        self.facts = URIPlaceFacts(kind: kind, variantIndex: variantIndex, renditionIndex: rendition?.index, msn: msn,
                                   partIndex: partIndex, pathway: pathway, line: line)
        self.original = original
        self.absoluteString = absoluteString
        self.rendition = rendition
    }

    init(facts: URIPlaceFacts, original: String, absoluteString: String?, rendition: Rendition?) {
        self.facts = facts
        self.original = original
        self.absoluteString = absoluteString
        self.rendition = rendition
    }

    /// `absoluteString` as a `URL`. Built on demand so that transforms that only need the
    /// string do not pay for URL parsing.
    public var absolute: URL? {
        guard let absoluteString else { return nil }
        return URL(string: absoluteString)
    }
}
