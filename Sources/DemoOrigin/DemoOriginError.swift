import Foundation

/// Why the demo origin could not load its bundled media.
public enum DemoOriginError: Error, Equatable, CustomStringConvertible {
    /// The media folder is not where it should be (a broken build or install).
    case mediaFolderMissing(path: String)
    /// A media file exists but cannot be read.
    case unreadableFile(path: String, reason: String)
    /// A bundled media playlist cannot be turned into a live window.
    case unsupportedPlaylist(path: String, reason: String)

    public var description: String {
        switch self {
        case .mediaFolderMissing(let path):
            return "demo media folder not found at \(path); rebuild the package or run scripts/make-demo-media.sh"
        case .unreadableFile(let path, let reason):
            return "cannot read demo media file \(path): \(reason)"
        case .unsupportedPlaylist(let path, let reason):
            return "demo playlist \(path) cannot be served live: \(reason)"
        }
    }
}
