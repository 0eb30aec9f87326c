/// What a request fetches, in the rule schema's words (`match.kind`) and in every record's `kind`.
/// A part is an LL-HLS partial segment (`EXT-X-PART`, or the part a preload hint names); a
/// `segment` is a whole one. Records before parts were told apart said "segment" for both.
public enum ResourceKind: String, Sendable, CaseIterable, Hashable, Codable {
    case master, media, segment, part, `init`, key, sessionData, steering

    /// A master or a media playlist: its body is parsed, rewritten and may be damaged.
    public var isPlaylist: Bool { self == .master || self == .media }

    /// A segment or a part: media data a player plays.
    public var isMediaData: Bool { self == .segment || self == .part }

    /// The kinds that belong to a variant or rendition, and so to its content-steering pathway.
    public static let ofPathways: Set<ResourceKind> = [.media, .segment, .part, .`init`, .key]
}
