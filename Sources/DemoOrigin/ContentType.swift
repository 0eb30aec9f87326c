/// The Content-Type the demo origin sends for a file, chosen by its extension.
enum ContentType {
    static let playlist = "application/vnd.apple.mpegurl"

    static func forPath(_ path: String) -> String {
        let name = path.split(separator: "/").last ?? ""
        guard let dot = name.lastIndex(of: ".") else { return "application/octet-stream" }
        switch name[name.index(after: dot)...].lowercased() {
        case "m3u8": return playlist
        case "ts": return "video/mp2t"
        case "m4s": return "video/iso.segment"
        case "mp4": return "video/mp4"
        case "aac": return "audio/aac"
        case "vtt": return "text/vtt"
        default: return "application/octet-stream"
        }
    }
}
