import HLS

/// How a playlist is named by the master that lists it — "master", "variant 0", "audio English",
/// "I-frame 1" — in `hlschaos inspect` (`BundleSummary`) and in what `hlschaos record` says it follows.
public enum PlaylistRole {
    public static let master = "master"

    public static func variant(_ index: Int) -> String { "variant \(index)" }

    public static func iFrameVariant(_ index: Int) -> String { "I-frame \(index)" }

    /// Its TYPE and NAME: "audio English", "subtitles Deutsch".
    public static func rendition(_ rendition: Rendition) -> String { "\(rendition.type.lowercased()) \(rendition.name)" }
}
