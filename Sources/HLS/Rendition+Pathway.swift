extension Rendition {
    /// The content-steering pathway of the variants that use this rendition's group; nil when none
    /// does, none names a pathway, or they name different ones (a group shared across pathways).
    public func pathway(among variants: [Variant]) -> String? {
        var found: String?
        for variant in variants {
            let group: String? = switch type.uppercased() {
            case "AUDIO": variant.audio
            case "VIDEO": variant.video
            case "SUBTITLES": variant.subtitles
            default: nil
            }
            guard group == groupID, let pathway = variant.pathwayID else { continue }
            if let found, found != pathway { return nil }
            found = pathway
        }
        return found
    }
}
