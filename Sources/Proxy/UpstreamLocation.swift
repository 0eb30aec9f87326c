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
        self.authority = authority.lowercased()
        self.pathAndQuery = pathAndQuery.hasPrefix("/") ? pathAndQuery : "/" + pathAndQuery
    }

    /// Parses "http://host:port/path?query#fragment"; nil for anything but absolute http(s) URLs.
    public init?(absolute text: String) {
        guard let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") else { return nil }
        let scheme = String(text[..<colon])
        let rest = text[text.index(colon, offsetBy: 3)...]
        let authorityEnd = rest.firstIndex(where: Self.endsAuthority) ?? rest.endIndex
        var authority = String(rest[..<authorityEnd])
        if let at = authority.lastIndex(of: "@") { authority = String(authority[authority.index(after: at)...]) }
        var tail = rest[authorityEnd...]
        if let hash = tail.firstIndex(of: "#") { tail = tail[..<hash] }
        let pathAndQuery = tail.first == "?" ? "/" + tail : String(tail)
        self.init(scheme: scheme, authority: authority, pathAndQuery: pathAndQuery.isEmpty ? "/" : pathAndQuery)
    }

    public var url: String { "\(scheme)://\(authority)\(pathAndQuery)" }
    public var description: String { url }

    public var path: Substring {
        pathAndQuery[..<(pathAndQuery.firstIndex(of: "?") ?? pathAndQuery.endIndex)]
    }

    /// The authority with the scheme's default port made explicit, so "h" and "h:80" compare equal.
    public var normalizedAuthority: String {
        let defaultPort = scheme == "https" ? "443" : "80"
        if authority.hasSuffix("]") || !authority.contains(":") { return authority + ":" + defaultPort }
        return authority
    }

    /// The media file extension of the path ("ts", "m4s", "m3u8"), lowercased; nil when there is none.
    public var pathExtension: String? {
        let last = path.split(separator: "/").last ?? ""
        guard let dot = last.lastIndex(of: "."), dot != last.startIndex else { return nil }
        let ext = last[last.index(after: dot)...]
        return ext.isEmpty ? nil : ext.lowercased()
    }

    private static func endsAuthority(_ character: Character) -> Bool {
        character == "/" || character == "?" || character == "#"
    }

    private static func isValidAuthority(_ authority: String) -> Bool {
        guard !authority.isEmpty, authority.utf8.count <= 300 else { return false }
        return authority.unicodeScalars.allSatisfy { scalar in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", ".", "-", "_", ":", "[", "]": return true
            default: return false
            }
        }
    }
}
