import Addressing
import CMCD

/// What the proxy knows about one request; the input of rule matching.
public struct RequestFacts: Sendable, Equatable {
    public var sessionID: String
    public var kind: ResourceKind
    /// The variant the resource belongs to (its media playlist, segments, init, keys), nil otherwise.
    public var variant: VariantFacts?
    /// The rendition (EXT-X-MEDIA) the resource belongs to, nil otherwise.
    public var rendition: RenditionFacts?
    /// Media sequence number of the segment (or of the segment an init/key applies to).
    public var msn: Int?
    /// An LL-HLS part's index in its segment (from 0), for part requests.
    public var part: Int?
    /// Position from the first segment of a VOD (or EVENT) playlist; nil on a sliding live window.
    public var index: Int?
    /// Start of the segment on the media timeline, in seconds.
    public var mediaTime: Double?
    public var copy: Copy
    /// The content-steering pathway (`PATHWAY-ID`) of the variant or rendition the resource belongs to.
    public var pathway: String?
    public var isRangeRequest: Bool
    /// A playlist request carrying `_HLS_msn`: an LL-HLS blocking reload (rfc8216bis 6.2.5.2).
    public var isBlockingReload: Bool
    public var method: String
    /// Identifies the resource for deterministic probability when msn/index do not (e.g. the
    /// upstream URL path of a playlist or key). Leave empty for segments.
    public var resource: String
    /// The CMCD the request carried (nil: none).
    public var cmcd: CMCDData?

    public init(sessionID: String, kind: ResourceKind, variant: VariantFacts? = nil, rendition: RenditionFacts? = nil,
                msn: Int? = nil, part: Int? = nil, index: Int? = nil, mediaTime: Double? = nil, copy: Copy = .primary, pathway: String? = nil,
                isRangeRequest: Bool = false, isBlockingReload: Bool = false, method: String = "GET", resource: String = "") {
        self.sessionID = sessionID; self.kind = kind; self.variant = variant; self.rendition = rendition
        self.msn = msn; self.part = part; self.index = index; self.mediaTime = mediaTime; self.copy = copy; self.pathway = pathway
        self.isRangeRequest = isRangeRequest; self.isBlockingReload = isBlockingReload; self.method = method; self.resource = resource
    }

    /// A stable text naming the resource (not the attempt), used to seed probability.
    public var resourceIdentity: String {
        var parts = [kind.rawValue, copy.rawValue]
        if let variant { parts.append("v\(variant.index)") }
        if let rendition { parts.append("r\(rendition.type)/\(rendition.language ?? "")/\(rendition.name)") }
        if let msn { parts.append("msn\(msn)") }
        if let part { parts.append("p\(part)") }
        if let index { parts.append("i\(index)") }
        if msn == nil, index == nil { parts.append(resource) }
        return parts.joined(separator: "|")
    }
}

/// A variant as seen in the multivariant playlist. `index` is its position among EXT-X-STREAM-INF
/// tags of the origin's master (document order, before any stripping or backups).
public struct VariantFacts: Sendable, Equatable {
    public var index: Int
    public var bandwidth: Int
    public var resolution: String?
    public var name: String?
    public var isHighest: Bool
    public var isLowest: Bool

    public init(index: Int, bandwidth: Int, resolution: String? = nil, name: String? = nil,
                isHighest: Bool = false, isLowest: Bool = false) {
        self.index = index; self.bandwidth = bandwidth; self.resolution = resolution; self.name = name
        self.isHighest = isHighest; self.isLowest = isLowest
    }
}

public struct RenditionFacts: Sendable, Equatable {
    /// AUDIO, SUBTITLES, CLOSED-CAPTIONS or VIDEO.
    public var type: String
    public var language: String?
    public var name: String
    public init(type: String, language: String? = nil, name: String) {
        self.type = type; self.language = language; self.name = name
    }
}
