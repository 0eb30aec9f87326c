/// What a device's `Proxy-Authorization: Basic …` header says, and the session it names.
///
/// In forward mode the proxy user is the session, with the same grammar as the `/s/` prefix of a
/// reverse URL: `tv1` or `tv1+status-503+slow` (iOS, macOS and Android proxy settings all take a
/// user name). A device that sends no credentials gets a session named after its address
/// (`ip-192-168-1-20`), unless the control API gave that address a name.
public struct ProxyCredentials: Equatable, Sendable {
    public var user: String
    public var password: String

    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// Parses a `Proxy-Authorization` value; nil when it is not well-formed Basic credentials.
    public init?(header: String) {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic", let decoded = Base64.decode(parts[1]),
              let text = String(validating: decoded, as: UTF8.self), let colon = text.firstIndex(of: ":")
        else { return nil }
        self.init(user: String(text[..<colon]), password: String(text[text.index(after: colon)...]))
    }

    public struct BadUser: Error, CustomStringConvertible {
        public var user: String
        public var description: String {
            "proxy user \"\(user.prefix(80))\" is not a session name: use <session>[+<preset>…] with names of 1–64 letters, digits, '.', '_' or '-' (for example tv1+status-503)"
        }
    }

    /// The session and presets the user name names.
    public func session() throws(BadUser) -> (session: String, presets: [String]) {
        let names = user.split(separator: "+", omittingEmptySubsequences: false).map(String.init)
        guard let first = names.first, names.allSatisfy(ProxyPath.isValidName) else { throw BadUser(user: user) }
        return (first, Array(names.dropFirst()))
    }

    /// The session of a device that sent no proxy user: `ip-` and its address with dashes.
    public static func session(forClientAddress address: String) -> String {
        "ip-" + String(address.map { $0 == "." || $0 == ":" ? "-" : $0 }.prefix(61))
    }
}

/// RFC 4648 base64 (padding optional), for the proxy's Basic credentials.
enum Base64 {
    static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var output: [UInt8] = []
        var buffer: UInt32 = 0, bits = 0
        for byte in text.utf8 {
            let value: UInt32
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(byte - 65)
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(byte - 71)
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(byte) + 4
            case UInt8(ascii: "+"): value = 62
            case UInt8(ascii: "/"): value = 63
            case UInt8(ascii: "="): continue
            default: return nil
            }
            buffer = buffer << 6 | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        return output
    }
}
