/// The target of a `CONNECT` request: `host:port`, `[v6]:port` or `v4:port` (RFC 9110 9.3.6 says
/// authority-form, and a port is required).
public struct ConnectTarget: Hashable, Sendable, CustomStringConvertible {
    /// Lowercased; an IPv6 literal without its brackets.
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    public enum ParseError: Error, Equatable, CustomStringConvertible {
        case noPort(String)
        case badPort(String)
        case badHost(String)

        public var description: String {
            switch self {
            case .noPort(let text): "CONNECT target \"\(text.prefix(100))\" has no port; send host:port (for example cdn.example.com:443)"
            case .badPort(let text): "CONNECT target \"\(text.prefix(100))\" has no valid port (1–65535)"
            case .badHost(let text): "CONNECT target \"\(text.prefix(100))\" has no valid host name or IP address"
            }
        }
    }

    public init(parsing text: String) throws(ParseError) {
        guard text.utf8.count <= 300, let colon = text.utf8.lastIndex(of: UInt8(ascii: ":")) else { throw .noPort(text) }
        var host = Substring(text.utf8[..<colon])
        let portText = Substring(text.utf8[text.utf8.index(after: colon)...])
        if host.hasPrefix("[") {
            guard host.hasSuffix("]") else { throw .badHost(text) }
            host = host.dropFirst().dropLast()
            guard IPAddress(host) != nil, host.contains(":") else { throw .badHost(text) }
        } else if host.contains(":") {
            throw .noPort(text)  // an IPv6 literal without brackets: its last group is not a port
        }
        guard !portText.isEmpty, portText.utf8.count <= 5, portText.utf8.allSatisfy({ (48...57).contains($0) }),
              let port = Int(portText), (1...65535).contains(port)
        else { throw portText.isEmpty ? .noPort(text) : .badPort(text) }
        guard HostName.isValid(host) || IPAddress(host) != nil else { throw .badHost(text) }
        self.init(host: host.lowercased(), port: port)
    }

    /// `host:port` with brackets around an IPv6 literal: the authority of URLs on this target.
    public var authority: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return port == 443 ? shownHost : "\(shownHost):\(port)"
    }

    public var description: String { (host.contains(":") ? "[\(host)]" : host) + ":\(port)" }
}

/// DNS host names as URLs and certificates carry them.
public enum HostName {
    /// Letters, digits, `-` and `_` in dot-separated labels of 1–63 bytes, 253 bytes in all.
    public static func isValid(_ name: some StringProtocol) -> Bool {
        var name = Substring(name)
        if name.hasSuffix(".") { name = name.dropLast() }
        guard !name.isEmpty, name.utf8.count <= 253 else { return false }
        return name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && label.utf8.count <= 63 && label.utf8.first != UInt8(ascii: "-")
                && label.utf8.allSatisfy { byte in
                    switch byte {
                    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                        return true
                    default: return false
                    }
                }
        }
    }

    /// Matches a host against a pattern of the config's `forward.intercept` list: `cdn.example.com`
    /// exactly, `*.example.com` for any name below example.com (not example.com itself), `*` for all.
    public static func matches(_ host: String, pattern: String) -> Bool {
        let host = host.lowercased(), pattern = pattern.lowercased()
        if pattern == "*" { return true }
        if pattern.hasPrefix("*.") { return host.hasSuffix(pattern.dropFirst()) && host.count > pattern.count - 1 }
        return host == pattern
    }
}
