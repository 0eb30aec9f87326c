/// `ot`: the media type of the object requested.
public enum CMCDObjectType: String, CaseIterable, Sendable, Hashable, Comparable {
    /// A text file: a manifest or playlist.
    case manifest = "m"
    case audio = "a"
    case video = "v"
    /// Muxed audio and video.
    case muxed = "av"
    case initSegment = "i"
    case caption = "c"
    /// An ISOBMFF timed-text track.
    case timedText = "tt"
    /// A key, licence or certificate.
    case key = "k"
    case other = "o"

    /// The types `d` and (v2) `bl`, `tbl` are defined for.
    public static let media: Set<CMCDObjectType> = [.audio, .video, .muxed, .timedText, .caption, .other]
    /// Audio, video or both: what `br` and `d` are expected on.
    public static let audioVisual: Set<CMCDObjectType> = [.audio, .video, .muxed]

    public var name: String {
        switch self {
        case .manifest: "manifest"
        case .audio: "audio"
        case .video: "video"
        case .muxed: "muxed audio and video"
        case .initSegment: "init segment"
        case .caption: "caption"
        case .timedText: "timed text"
        case .key: "key"
        case .other: "other"
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// `sf`: the streaming format.
public enum CMCDStreamingFormat: String, CaseIterable, Sendable, Hashable {
    case dash = "d"
    case hls = "h"
    /// HESP (v2).
    case hesp = "e"
    case smooth = "s"
    case other = "o"
}

/// `st`: the stream type.
public enum CMCDStreamType: String, CaseIterable, Sendable, Hashable {
    /// All segments are available (VOD).
    case vod = "v"
    /// Segments become available over time.
    case live = "l"
    /// Low-latency live (v2).
    case lowLatencyLive = "ll"
}

/// `sta` (v2): the playback state as the user perceives it, at the time of the request.
public enum CMCDPlayerState: String, CaseIterable, Sendable, Hashable {
    case starting = "s"
    case playing = "p"
    case seeking = "k"
    /// Stopped rendering for lack of buffer (not reported during startup or seeking).
    case rebuffering = "r"
    case paused = "a"
    case ended = "e"
    case fatalError = "f"
    /// The user ended playback before the end of the asset.
    case quit = "q"
    case preloading = "d"
}

/// An integer a v2 key may give per object type: `bl=(2100;v 1800;a)`; a v1 scalar (`bl=2100`) is one
/// value without a type.
public struct CMCDTypedValue: Sendable, Hashable {
    public var value: Int
    /// The object type named by the item's parameter (`;v`), nil when the value names none.
    public var objectType: CMCDObjectType?

    public init(_ value: Int, _ objectType: CMCDObjectType? = nil) {
        self.value = value
        self.objectType = objectType
    }
}

extension Array where Element == CMCDTypedValue {
    /// The value for an object type: the one tagged with it (a muxed request also reads a video
    /// value), else the untagged one, else nil.
    public func value(for objectType: CMCDObjectType?) -> Int? {
        if let objectType {
            if let tagged = first(where: { $0.objectType == objectType }) { return tagged.value }
            if objectType == .muxed, let video = first(where: { $0.objectType == .video }) { return video.value }
        }
        return first(where: { $0.objectType == nil })?.value ?? (count == 1 ? self[0].value : nil)
    }
}

/// One entry of `nor`: a path relative to the request's URL, and (v2 `;r`, v1 `nrr`) a byte range.
public struct CMCDNextObject: Sendable, Hashable {
    public var path: String
    /// `first-last`, `first-` or `-suffix`, as written.
    public var range: String?

    public init(path: String, range: String? = nil) {
        self.path = path
        self.range = range
    }
}
