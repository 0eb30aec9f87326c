/// An absolute http(s) URL split the way the proxy needs it: the authority decides whether a fetch is
/// allowed, and the path and query travel unchanged (CDN tokens live in the query).
public struct UpstreamLocation: Hashable, Sendable, CustomStringConvertible {
    public var scheme: String        // "http" or "https", lowercased
    public var authority: String     // "host", "host:port" or "[v6]:port", host lowercased
    public var pathAndQuery: String  // starts with "/", percent-encoding as received; no fragment

    public init?(scheme: String, authority: String, pathAndQuery: String) {
        let scheme = scheme.lowercased()
        guard scheme == "http" || scheme == "https", Self.isValidAuthority(authority) else { return nil }
        self.scheme = scheme
        self.authority = authority.utf8.contains(where: { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) })
            ? authority.lowercased() : authority
        self.pathAndQuery = pathAndQuery.hasPrefix("/") ? pathAndQuery : "/" + pathAndQuery
    }

    /// Parses "http://host:port/path?query#fragment"; nil for anything but absolute http(s) URLs.
    /// Scans UTF-8 bytes: the proxy calls this for every URI of every playlist it rewrites.
    public init?(absolute text: String) {
        let bytes = text.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        var cursor = bytes.index(after: colon)
        for _ in 0..<2 {
            guard cursor < bytes.endIndex, bytes[cursor] == UInt8(ascii: "/") else { return nil }
            cursor = bytes.index(after: cursor)
        }
        let authorityStart = cursor
        while cursor < bytes.endIndex, !Self.endsAuthority(bytes[cursor]) { cursor = bytes.index(after: cursor) }
        var authority = Substring(text.utf8[authorityStart..<cursor])
        if let at = authority.utf8.lastIndex(of: UInt8(ascii: "@")) {
            authority = authority[authority.utf8.index(after: at)...]
        }
        var end = bytes.endIndex
        if let hash = bytes[cursor...].firstIndex(of: UInt8(ascii: "#")) { end = hash }
        let tail = Substring(text.utf8[cursor..<end])
        let pathAndQuery = tail.isEmpty ? "/" : (tail.utf8.first == UInt8(ascii: "?") ? "/" + tail : String(tail))
        self.init(
            scheme: String(decoding: bytes[..<colon], as: UTF8.self), authority: String(authority),
            pathAndQuery: pathAndQuery)
    }

    public var url: String { "\(scheme)://\(authority)\(pathAndQuery)" }
    public var description: String { url }

    public var path: Substring {
        let bytes = pathAndQuery.utf8
        return Substring(bytes[..<(bytes.firstIndex(of: UInt8(ascii: "?")) ?? bytes.endIndex)])
    }

    /// The authority with the scheme's default port made explicit, so "h" and "h:80" compare equal.
    public var normalizedAuthority: String {
        let defaultPort = scheme == "https" ? "443" : "80"
        if authority.hasSuffix("]") || !authority.utf8.contains(UInt8(ascii: ":")) { return authority + ":" + defaultPort }
        return authority
    }

    /// The host without brackets or port ("cdn.example.com", "2001:db8::1").
    public var host: String { String(Self.host(ofAuthority: authority)) }

    /// The port, the scheme's default when the authority names none.
    public var port: Int { Int(normalizedAuthority.split(separator: ":").last ?? "") ?? (scheme == "https" ? 443 : 80) }

    /// The host of "host", "host:port" or "[v6]:port" (a client's "address:port" too), brackets removed.
    public static func host<Text: StringProtocol>(ofAuthority authority: Text) -> Text.SubSequence {
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
            return authority[authority.index(after: authority.startIndex)..<end]
        }
        return authority.prefix { $0 != ":" }
    }

    /// The extension of the path's last segment ("ts", "m4s", "m3u8"), lowercased; nil when there is none.
    public var pathExtension: String? { ResourceGuess.pathExtension(of: path) }

    private static func endsAuthority(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
    }

    private static func isValidAuthority(_ authority: String) -> Bool {
        guard !authority.isEmpty, authority.utf8.count <= 300 else { return false }
        return authority.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"),
                UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"):
                return true
            default: return false
            }
        }
    }
}
