extension Variant {
    /// The rendition group the variant names for a rendition type (`AUDIO`, `VIDEO`, `SUBTITLES`,
    /// `CLOSED-CAPTIONS`; case ignored); nil when it names none.
    public func group(ofType type: String) -> String? {
        switch type.uppercased() {
        case "AUDIO": audio
        case "VIDEO": video
        case "SUBTITLES": subtitles
        case "CLOSED-CAPTIONS": closedCaptions
        default: nil
        }
    }
}

extension Rendition {
    /// The content-steering pathway of the variants that use this rendition's group; nil when none
    /// does, none names a pathway, or they name different ones (a group shared across pathways).
    public func pathway(among variants: [Variant]) -> String? {
        var found: String?
        for variant in variants where variant.group(ofType: type) == groupID {
            guard let pathway = variant.pathwayID else { continue }
            if let found, found != pathway { return nil }
            found = pathway
        }
        return found
    }
}
