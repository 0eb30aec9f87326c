/// What a request fetches, in the rule schema's words (`match.kind`) and in every record's `kind`.
public enum ResourceKind: String, Sendable, CaseIterable, Hashable {
    case master, media, segment, `init`, key, sessionData, steering

    /// A master or a media playlist: its body is parsed, rewritten and may be damaged.
    public var isPlaylist: Bool { self == .master || self == .media }

    /// A kind as records and bundles write it. Records of LL-HLS parts say "part" (a part is a
    /// segment to the rules); a name no version of hlschaos wrote is nil.
    public init?(recorded name: String) {
        if name == "part" {
            self = .segment
        } else {
            self.init(rawValue: name)
        }
    }
}
