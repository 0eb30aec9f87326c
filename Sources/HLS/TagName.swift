/// The tags the parser understands. Raw values are the names as written on the wire.
enum TagName: String, CaseIterable, Sendable {
    case extm3u = "#EXTM3U"
    case version = "#EXT-X-VERSION"
    case independentSegments = "#EXT-X-INDEPENDENT-SEGMENTS"
    case start = "#EXT-X-START"
    case define = "#EXT-X-DEFINE"
    // media playlist
    case targetDuration = "#EXT-X-TARGETDURATION"
    case mediaSequence = "#EXT-X-MEDIA-SEQUENCE"
    case discontinuitySequence = "#EXT-X-DISCONTINUITY-SEQUENCE"
    case endList = "#EXT-X-ENDLIST"
    case playlistType = "#EXT-X-PLAYLIST-TYPE"
    case iFramesOnly = "#EXT-X-I-FRAMES-ONLY"
    case partInf = "#EXT-X-PART-INF"
    case serverControl = "#EXT-X-SERVER-CONTROL"
    case allowCache = "#EXT-X-ALLOW-CACHE"
    // media segment
    case extinf = "#EXTINF"
    case byteRange = "#EXT-X-BYTERANGE"
    case discontinuity = "#EXT-X-DISCONTINUITY"
    case key = "#EXT-X-KEY"
    case map = "#EXT-X-MAP"
    case programDateTime = "#EXT-X-PROGRAM-DATE-TIME"
    case dateRange = "#EXT-X-DATERANGE"
    case skip = "#EXT-X-SKIP"
    case preloadHint = "#EXT-X-PRELOAD-HINT"
    case renditionReport = "#EXT-X-RENDITION-REPORT"
    case gap = "#EXT-X-GAP"
    case bitrate = "#EXT-X-BITRATE"
    case part = "#EXT-X-PART"
    // multivariant
    case media = "#EXT-X-MEDIA"
    case streamInf = "#EXT-X-STREAM-INF"
    case iFrameStreamInf = "#EXT-X-I-FRAME-STREAM-INF"
    case sessionData = "#EXT-X-SESSION-DATA"
    case sessionKey = "#EXT-X-SESSION-KEY"
    case contentSteering = "#EXT-X-CONTENT-STEERING"

    /// Tags that only appear in multivariant playlists.
    var isMultivariantTag: Bool {
        switch self {
        case .media, .streamInf, .iFrameStreamInf, .sessionData, .sessionKey, .contentSteering: return true
        default: return false
        }
    }

    /// Tags that only appear in media playlists.
    var isMediaTag: Bool {
        switch self {
        case .targetDuration, .mediaSequence, .discontinuitySequence, .endList, .playlistType, .iFramesOnly,
             .partInf, .serverControl, .extinf, .byteRange, .discontinuity, .key, .map, .programDateTime,
             .skip, .preloadHint, .renditionReport, .gap, .bitrate, .part:
            return true
        default: return false
        }
    }

    /// Tags that describe only the next segment; they go away with it when it is removed.
    /// (KEY, MAP, BITRATE and DATERANGE keep effect beyond one segment and stay.)
    var belongsToSingleSegment: Bool {
        switch self {
        case .extinf, .byteRange, .discontinuity, .programDateTime, .gap, .part: return true
        default: return false
        }
    }

    /// Open hashing into 256 buckets by FNV-1a of the name: no Dictionary hashing per line.
    private static let buckets: [[(TagName, [UInt8])]] = {
        var buckets = [[(TagName, [UInt8])]](repeating: [], count: 256)
        for tag in TagName.allCases {
            let bytes = Array(tag.rawValue.utf8)
            let hash = bytes.withUnsafeBufferPointer { fnv1a($0) }
            buckets[Int(hash & 0xFF)].append((tag, bytes))
        }
        return buckets
    }()

    /// Looks a tag name (the bytes before `:`) up without building a String.
    static func lookup(_ name: UnsafeBufferPointer<UInt8>) -> TagName? {
        // Half the lines of a media playlist: no hash for it.
        if name.count == 7, name[4] == 0x49, name[5] == 0x4E, name[6] == 0x46,
           name[0] == 0x23, name[1] == 0x45, name[2] == 0x58, name[3] == 0x54 {
            return .extinf
        }
        let bucket = buckets[Int(fnv1a(name) & 0xFF)]
        for (tag, bytes) in bucket where bytes.count == name.count {
            if bytes.withUnsafeBufferPointer({ $0.elementsEqual(name) }) { return tag }
        }
        return nil
    }

    private static func fnv1a(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }
}
