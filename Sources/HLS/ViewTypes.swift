import Foundation

public enum PlaylistKind: String, Sendable, Hashable {
    case multivariant, media
}

/// An `EXT-X-STREAM-INF` entry with the URI line that follows it.
public struct Variant: Sendable, Hashable {
    /// Position among the variants, in document order, starting at 0.
    public var index: Int
    public var bandwidth: Int
    public var averageBandwidth: Int?
    public var resolution: String?
    public var codecs: String?
    public var frameRate: Double?
    public var audio: String?
    public var video: String?
    public var subtitles: String?
    public var closedCaptions: String?
    public var pathwayID: String?
    public var score: Double?
    /// The URI line as written, after variable substitution.
    public var uri: String
    /// Every attribute by name, unquoted and with variables substituted.
    public var attributes: [String: String]
    /// 1-based line number of the `EXT-X-STREAM-INF` tag.
    public var line: Int
}

/// An `EXT-X-MEDIA` entry.
public struct Rendition: Sendable, Hashable {
    public var index: Int
    public var type: String
    public var groupID: String
    public var language: String?
    public var name: String
    public var isDefault: Bool
    public var autoselect: Bool
    public var uri: String?
    public var attributes: [String: String]
    public var line: Int
}

/// An `EXT-X-I-FRAME-STREAM-INF` entry.
public struct IFrameVariant: Sendable, Hashable {
    public var index: Int
    public var bandwidth: Int
    public var resolution: String?
    public var codecs: String?
    public var uri: String
    public var attributes: [String: String]
    public var line: Int
}

/// An `EXT-X-SESSION-DATA` entry.
public struct SessionData: Sendable, Hashable {
    public var dataID: String
    public var value: String?
    public var uri: String?
    public var language: String?
    public var line: Int
}

/// An `EXT-X-KEY` or `EXT-X-SESSION-KEY`.
public struct Key: Sendable, Hashable {
    public var method: String
    public var uri: String?
    public var iv: String?
    public var keyFormat: String?
    public var keyFormatVersions: String?

    public init(method: String, uri: String? = nil, iv: String? = nil, keyFormat: String? = nil,
                keyFormatVersions: String? = nil) {
        self.method = method
        self.uri = uri
        self.iv = iv
        self.keyFormat = keyFormat
        self.keyFormatVersions = keyFormatVersions
    }
}

/// A resolved byte range: the offset is always known (implicit offsets are resolved).
public struct ByteRange: Sendable, Hashable {
    public var length: Int
    public var offset: Int

    public init(length: Int, offset: Int) {
        self.length = length
        self.offset = offset
    }
}

/// The `EXT-X-MAP` in effect for a segment.
public struct MapInfo: Sendable, Hashable {
    public var uri: String
    public var byteRange: ByteRange?

    public init(uri: String, byteRange: ByteRange? = nil) {
        self.uri = uri
        self.byteRange = byteRange
    }
}

/// An `EXT-X-PART` (LL-HLS partial segment).
public struct Part: Sendable, Hashable {
    public var duration: Double
    public var uri: String
    public var independent: Bool
    public var byteRange: ByteRange?
    public var gap: Bool
    public var line: Int
}

/// A media segment: the URI line plus the tags that apply to it.
public struct Segment: Sendable, Hashable {
    /// Media sequence number.
    public var msn: Int
    /// Position in this playlist, starting at 0.
    public var index: Int
    public var discontinuitySequence: Int
    /// Preceded by `EXT-X-DISCONTINUITY`.
    public var discontinuity: Bool
    public var duration: Double
    public var title: String?
    public var uri: String
    public var byteRange: ByteRange?
    public var key: Key?
    public var map: MapInfo?
    /// Given by `EXT-X-PROGRAM-DATE-TIME` or extrapolated from an earlier one.
    public var programDateTime: Date?
    public var gap: Bool
    public var bitrate: Int?
    public var parts: [Part]
    /// Sum of the durations of the segments before it in this playlist.
    public var startTime: Double
    /// 1-based line number of the URI line.
    public var line: Int
}

/// `EXT-X-CONTENT-STEERING`.
public struct ContentSteering: Sendable, Hashable {
    public var serverURI: String
    public var pathwayID: String?

    public init(serverURI: String, pathwayID: String? = nil) {
        self.serverURI = serverURI
        self.pathwayID = pathwayID
    }
}

/// `EXT-X-SERVER-CONTROL`.
public struct ServerControl: Sendable, Hashable {
    public var canSkipUntil: Double?
    public var canSkipDateRanges: Bool
    public var holdBack: Double?
    public var partHoldBack: Double?
    public var canBlockReload: Bool
}

/// `EXT-X-PRELOAD-HINT`.
public struct PreloadHint: Sendable, Hashable {
    public var type: String
    public var uri: String
    public var byteRangeStart: Int?
    public var byteRangeLength: Int?
    public var line: Int
}

/// `EXT-X-RENDITION-REPORT`.
public struct RenditionReport: Sendable, Hashable {
    public var uri: String
    public var lastMSN: Int?
    public var lastPart: Int?
    public var line: Int
}

/// `EXT-X-SKIP`.
public struct Skip: Sendable, Hashable {
    public var skippedSegments: Int
    public var recentlyRemovedDateRanges: String?
    public var line: Int
}

/// `EXT-X-DATERANGE`.
public struct DateRange: Sendable, Hashable {
    public var id: String
    public var startDate: String?
    public var attributes: [String: String]
    public var line: Int
}
