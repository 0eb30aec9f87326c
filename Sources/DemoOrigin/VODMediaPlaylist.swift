import Foundation

/// The parts of one bundled VOD media playlist that the live window reuses: the header
/// tags that apply to every segment (version, target duration, EXT-X-MAP, EXT-X-KEY…)
/// and the segments in order. Plain text handling: the generated playlists are simple,
/// and anything this does not expect is rejected when the origin starts, not served.
struct VODMediaPlaylist: Sendable, Equatable {
    struct Segment: Sendable, Equatable {
        /// The EXTINF line as written in the VOD playlist.
        var extinf: String
        var duration: Double
        /// The segment URI, relative to the playlist.
        var uri: String
        var fileExtension: String
    }

    var headerLines: [String]
    var segments: [Segment]

    /// Whether an EXT-X-KEY other than METHOD=NONE applies to the segments.
    var isEncrypted: Bool {
        headerLines.contains { $0.hasPrefix("#EXT-X-KEY:") && !$0.contains("METHOD=NONE") }
    }

    /// The URI of the EXT-X-MAP tag (fMP4 init segment), if any.
    var mapURI: String? {
        guard let line = headerLines.first(where: { $0.hasPrefix("#EXT-X-MAP:") }),
              let start = line.range(of: "URI=\"") else { return nil }
        let uri = line[start.upperBound...].prefix { $0 != "\"" }
        return uri.isEmpty ? nil : String(uri)
    }

    /// Tags the live window writes itself (or must not write).
    private static let replacedTags = [
        "#EXTM3U", "#EXT-X-MEDIA-SEQUENCE", "#EXT-X-DISCONTINUITY-SEQUENCE", "#EXT-X-PLAYLIST-TYPE", "#EXT-X-ENDLIST",
    ]
    /// Tags that may only appear before the first segment for the live window to be correct.
    private static let headerOnlyTags = ["#EXT-X-MAP", "#EXT-X-KEY", "#EXT-X-BYTERANGE", "#EXT-X-DISCONTINUITY"]

    init(text: String, path: String) throws {
        var header: [String] = []
        var segments: [Segment] = []
        var pendingExtinf: (line: String, duration: Double)?
        for rawLine in text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline) {
            let line = String(rawLine).trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            if line.hasPrefix("#EXTINF:") {
                let value = line.dropFirst("#EXTINF:".count).split(separator: ",", omittingEmptySubsequences: false).first ?? ""
                guard let duration = Double(value), duration > 0 else {
                    throw DemoOriginError.unsupportedPlaylist(path: path, reason: "bad EXTINF duration in `\(line)`")
                }
                pendingExtinf = (line, duration)
            } else if line.hasPrefix("#") {
                let tagName = String(line.prefix { $0 != ":" })
                if Self.replacedTags.contains(tagName) { continue }
                if Self.headerOnlyTags.contains(tagName), !segments.isEmpty || pendingExtinf != nil {
                    throw DemoOriginError.unsupportedPlaylist(path: path, reason: "\(tagName) between segments")
                }
                if tagName == "#EXT-X-BYTERANGE" || tagName == "#EXT-X-DISCONTINUITY" {
                    throw DemoOriginError.unsupportedPlaylist(path: path, reason: "\(tagName) is not supported live")
                }
                header.append(line)
            } else {
                guard let extinf = pendingExtinf else {
                    throw DemoOriginError.unsupportedPlaylist(path: path, reason: "URI `\(line)` without EXTINF")
                }
                guard !line.contains("/"), let dot = line.lastIndex(of: ".") else {
                    throw DemoOriginError.unsupportedPlaylist(path: path, reason: "segment URI `\(line)` must be a plain file name with an extension")
                }
                segments.append(Segment(extinf: extinf.line, duration: extinf.duration, uri: line,
                                        fileExtension: String(line[line.index(after: dot)...])))
                pendingExtinf = nil
            }
        }
        guard !segments.isEmpty else {
            throw DemoOriginError.unsupportedPlaylist(path: path, reason: "no segments")
        }
        self.headerLines = header
        self.segments = segments
    }
}
