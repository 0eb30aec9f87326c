/// An absolute http(s) URL split the way the proxy needs it: the authority decides whether a fetch is
/// allowed, and the path and query travel unchanged (CDN tokens live in the query).
public struct UpstreamLocation: Hashable, Sendable, CustomStringConvertible {
    public var scheme: String        // "http" or "https", lowercased
    public var authority: String     // "host", "host:port" or "[v6]:port", host lowercased
    public var pathAndQuery: String  // starts with "/", percent-encoding as received; no fragment

    public init?(scheme: String, authority: String, pathAndQuery: String) {
        let scheme = scheme == "http" || scheme == "https" ? scheme : scheme.lowercased()
        guard scheme == "http" || scheme == "https", Self.isValidAuthority(authority) else { return nil }
        self.scheme = scheme
        var authority = authority
        let hasUppercase = authority.withUTF8 { $0.contains { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) } }
        self.authority = hasUppercase ? authority.lowercased() : authority
        self.pathAndQuery = pathAndQuery.hasPrefix("/") ? pathAndQuery : "/" + pathAndQuery
    }

    /// Parses "http://host:port/path?query#fragment"; nil for anything but absolute http(s) URLs.
    /// Scans UTF-8 bytes: the proxy calls this for every URI of every playlist it rewrites.
    public init?(absolute text: String) {
        var text = text
        let parts = text.withUTF8 { bytes -> (scheme: String, authority: String, pathAndQuery: String)? in
            guard let ranges = Self.split(bytes) else { return nil }
            func string(_ range: Range<Int>) -> String {
                String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
            }
            let tail = ranges.pathAndQuery
            let pathAndQuery = tail.isEmpty ? "/" : bytes[tail.lowerBound] == UInt8(ascii: "?") ? "/" + string(tail) : string(tail)
            return (string(ranges.scheme), string(ranges.authority), pathAndQuery)
        }
        guard let parts else { return nil }
        self.init(scheme: parts.scheme, authority: parts.authority, pathAndQuery: parts.pathAndQuery)
    }

    /// Where scheme, authority (without user information) and path with query sit in an absolute
    /// URL's bytes; nil unless it has the form `scheme://…`.
    private static func split(_ bytes: UnsafeBufferPointer<UInt8>) -> (scheme: Range<Int>, authority: Range<Int>, pathAndQuery: Range<Int>)? {
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon + 2 < bytes.count,
              bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/")
        else { return nil }
        var authorityStart = colon + 3
        var cursor = authorityStart
        while cursor < bytes.count, !endsAuthority(bytes[cursor]) {
            if bytes[cursor] == UInt8(ascii: "@") { authorityStart = cursor + 1 }
            cursor += 1
        }
        var end = cursor
        while end < bytes.count, bytes[end] != UInt8(ascii: "#") { end += 1 }
        return (0..<colon, authorityStart..<cursor, cursor..<end)
    }

    /// The same scheme and authority with another path and query (which starts with "/").
    public func with(pathAndQuery: String) -> UpstreamLocation {
        var location = self
        location.pathAndQuery = pathAndQuery.utf8.first == UInt8(ascii: "/") ? pathAndQuery : "/" + pathAndQuery
        return location
    }

    /// Built with its whole length reserved: one allocation (every upstream fetch asks for it).
    public var url: String {
        var url = ""
        url.reserveCapacity(scheme.utf8.count + 3 + authority.utf8.count + pathAndQuery.utf8.count)
        url += scheme
        url += "://"
        url += authority
        url += pathAndQuery
        return url
    }
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
        var authority = authority
        return authority.withUTF8 { $0.allSatisfy(isAuthorityByte) }
    }

    private static func isAuthorityByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"),
            UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"):
            return true
        default: return false
        }
    }
}
