/// What went wrong while reading a playlist.
public enum PlaylistErrorKind: String, Sendable, Hashable {
    case notHLS
    case malformedTag
    case malformedAttribute
    case missingAttribute
    case invalidValue
    case missingURI
    case unexpectedTag
    case undefinedVariable
    case duplicateTag
    case mixedPlaylistKinds
    case invalidByteRange
    case missingTag
    case invalidEncoding
    case misplacedWhitespace
}

/// A problem found in a playlist, with the 1-based line number where it was found.
public struct PlaylistError: Error, Sendable, Hashable, CustomStringConvertible {
    public var line: Int?
    public var kind: PlaylistErrorKind
    public var message: String

    public init(line: Int?, kind: PlaylistErrorKind, message: String) {
        self.line = line
        self.kind = kind
        self.message = message
    }

    /// For example `line 7: EXT-X-STREAM-INF: missing required attribute BANDWIDTH`.
    public var description: String {
        if let line { return "line \(line): \(message)" }
        return message
    }
}
