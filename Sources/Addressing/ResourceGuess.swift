import Foundation

/// What a resource is when no playlist has said so: from its path's extension, its content type and
/// the first bytes of its body. The proxy asks this of entry URLs; the replay origin, bundle
/// summaries, the redactor and HAR import ask it of what they read.
public enum ResourceGuess {
    public static let playlistExtensions: Set<String> = ["m3u8", "m3u"]
    /// Extensions of media segments (and parts, and subtitle segments).
    public static let mediaExtensions: Set<String> = [
        "ts", "m4s", "mp4", "m4a", "m4v", "aac", "ac3", "ec3", "mp3", "vtt", "webvtt", "cmfv", "cmfa", "cmft",
        "fmp4", "mpegts",
    ]

    /// The last path segment's extension ("ts", "m3u8"), ASCII-lowercased; nil when there is none.
    /// `path` carries no query. A byte scan: the proxy asks it for every entry request.
    public static func pathExtension(of path: Substring) -> String? {
        let bytes = path.utf8
        let nameStart = bytes.lastIndex(of: UInt8(ascii: "/")).map(bytes.index(after:)) ?? bytes.startIndex
        guard let dot = bytes[nameStart...].lastIndex(of: UInt8(ascii: ".")), dot != nameStart else { return nil }
        let ext = bytes[bytes.index(after: dot)...]
        guard !ext.isEmpty else { return nil }
        // Written in place: an extension fits a small string, so most take no allocation at all.
        return String(unsafeUninitializedCapacity: ext.count) { buffer in
            for (offset, byte) in ext.enumerated() { buffer[offset] = (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
            return ext.count
        }
    }

    /// `application/vnd.apple.mpegurl`, `audio/mpegurl`, `application/x-mpegURL`…
    public static func isPlaylistContentType(_ value: String?) -> Bool {
        // A byte scan, not Foundation's case-insensitive search: the proxy asks this of every
        // response that was not expected to be a playlist, segments included.
        guard var value else { return false }
        let needle = mpegurl
        return value.withUTF8 { bytes in
            guard bytes.count >= needle.count else { return false }
            // `| 0x20` lowercases ASCII letters and maps nothing else onto one.
            for start in 0...(bytes.count - needle.count) where bytes[start] | 0x20 == needle[0] {
                var index = 1
                while index < needle.count, (bytes[start + index] | 0x20) == needle[index] { index += 1 }
                if index == needle.count { return true }
            }
            return false
        }
    }

    private static let mpegurl = Array("mpegurl".utf8)

    /// `video/…`, `audio/…` (but not a playlist type), `text/vtt`.
    public static func isMediaContentType(_ value: String?) -> Bool {
        guard let value = value?.lowercased(), !isPlaylistContentType(value) else { return false }
        return value.hasPrefix("video/") || value.hasPrefix("audio/") || value.hasPrefix("text/vtt")
    }

    /// What a name (path and content type, no body) says.
    public enum ByName: Equatable, Sendable {
        case playlist, mediaFile, key, unknown
    }

    public static func byName(path: Substring, contentType: String? = nil) -> ByName {
        let ext = pathExtension(of: path) ?? ""
        if playlistExtensions.contains(ext) || isPlaylistContentType(contentType) { return .playlist }
        if mediaExtensions.contains(ext) || isMediaContentType(contentType) { return .mediaFile }
        if ext == "key" { return .key }
        return .unknown
    }

    /// `#EXTM3U` at the start, after an optional UTF-8 byte-order mark (rfc8216bis 4.4.1.1).
    public static func isPlaylist(body: some Collection<UInt8>) -> Bool {
        var start = body.startIndex
        if body.starts(with: byteOrderMark) { start = body.index(start, offsetBy: 3) }
        return body[start...].starts(with: extM3U)
    }

    /// `.master` or `.media` for a body that starts like a playlist; nil for anything else.
    /// A multivariant playlist names variants (rfc8216bis 4.4.6); the first tag that only one kind
    /// may hold decides, so a long media playlist is read no further than its EXT-X-TARGETDURATION
    /// (required, and near the top). A playlist with neither is a media playlist.
    public static func playlistKind(of body: [UInt8]) -> ResourceKind? {
        body.withUnsafeBytes { playlistKind(of: $0) }
    }

    /// The same, for bytes held elsewhere (a network buffer).
    public static func playlistKind(of raw: UnsafeRawBufferPointer) -> ResourceKind? {
        guard isPlaylist(body: raw) else { return nil }
        let isMultivariant = { () -> Bool in
            // Only line starts can begin a tag: compare there, not at every byte.
            var start = 0
            while start < raw.count {
                if raw[start] == UInt8(ascii: "#") {
                    for (needle, multivariant) in kindTags where raw.count - start >= needle.count {
                        if needle.withUnsafeBytes({ memcmp(raw.baseAddress! + start, $0.baseAddress!, needle.count) }) == 0 {
                            return multivariant
                        }
                    }
                }
                guard let newline = memchr(raw.baseAddress! + start, Int32(UInt8(ascii: "\n")), raw.count - start) else {
                    return false
                }
                start = raw.baseAddress!.distance(to: UnsafeRawPointer(newline)) + 1
            }
            return false
        }()
        return isMultivariant ? .master : .media
    }

    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
    private static let extM3U = Array("#EXTM3U".utf8)
    /// Tags only a multivariant (true) or only a media playlist (false) holds.
    private static let kindTags: [(tag: [UInt8], multivariant: Bool)] = [
        (Array("#EXT-X-STREAM-INF:".utf8), true), (Array("#EXT-X-I-FRAME-STREAM-INF:".utf8), true),
        (Array("#EXT-X-TARGETDURATION:".utf8), false), (Array("#EXTINF:".utf8), false),
    ]
}
