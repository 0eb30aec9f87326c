import Foundation

/// Why the demo origin could not load its bundled media.
public enum DemoOriginError: Error, Equatable, CustomStringConvertible {
    /// The media folder given is not there, or holds no file.
    case mediaFolderMissing(path: String)
    /// The media that come with the binary are in none of the places searched: a binary copied
    /// without its resource folder.
    case mediaNotInstalled(searched: [String], resourceFolder: String)
    /// A media file exists but cannot be read.
    case unreadableFile(path: String, reason: String)
    /// A bundled media playlist cannot be turned into a live window.
    case unsupportedPlaylist(path: String, reason: String)

    public var description: String {
        switch self {
        case .mediaFolderMissing(let path):
            return "demo media folder not found at \(path); rebuild the package or run scripts/make-demo-media.sh"
        case .mediaNotInstalled(let searched, let resourceFolder):
            return "the demo origin's media are not installed (looked in \(searched.joined(separator: " and "))): "
                + "copy the folder \(resourceFolder) from the build folder (.build/release/) beside the hlschaos binary, "
                + "or put the proxy in front of your own origin with `hlschaos serve --upstream URL`"
        case .unreadableFile(let path, let reason):
            return "cannot read demo media file \(path): \(reason)"
        case .unsupportedPlaylist(let path, let reason):
            return "demo playlist \(path) cannot be served live: \(reason)"
        }
    }
}
