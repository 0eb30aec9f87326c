#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A name a leaf certificate is made for: a DNS name (a `*.` wildcard allowed as the whole
/// leftmost label) or an IP address, checked and written the one way, so that a certificate names
/// exactly what a client compares against and `Example.COM.` and `example.com` share a leaf.
enum LeafName: Hashable, Sendable {
    case dns(String)
    /// The address as written in a URL's host (IPv6 in its compressed form, without brackets)
    /// and its 4 or 16 bytes.
    case ip(String, [UInt8])

    var text: String {
        switch self {
        case .dns(let name): name
        case .ip(let written, _): written
        }
    }

    /// Longest DNS name (RFC 1035: 255 octets on the wire, 253 characters written out).
    static let maxDNSLength = 253

    /// Reads `name` as a host: an IP literal (IPv6 with or without brackets), else a DNS name.
    /// The error says what is wrong with it.
    static func parse(_ name: String) throws(LocalCA.Error) -> LeafName {
        func invalid(_ reason: String) -> LocalCA.Error {
            LocalCA.Error(.invalidName, path: nil, "\"\(name)\" cannot be named in a certificate: \(reason)")
        }
        guard !name.isEmpty else { throw invalid("the name is empty") }
        var host = name
        if host.hasPrefix("[") && host.hasSuffix("]") && host.count > 2 {
            host = String(host.dropFirst().dropLast())
            guard host.contains(":") else { throw invalid("only IPv6 addresses are written in brackets") }
        }
        if host.contains(":") {
            guard let bytes = addressBytes(host, family: AF_INET6) else {
                throw invalid("not an IPv6 address (a zone such as %eth0 cannot be named in a certificate)")
            }
            return .ip(presentation(bytes, family: AF_INET6), bytes)
        }
        guard host.allSatisfy(\.isASCII) else {
            throw invalid("write an internationalized name in its ASCII (punycode, xn--) form")
        }
        if host.hasSuffix(".") { host.removeLast() }
        host = host.lowercased()
        guard !host.isEmpty else { throw invalid("the name is empty") }
        guard host.utf8.count <= maxDNSLength else {
            throw invalid("longer than \(maxDNSLength) characters")
        }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        // As URL parsers do: a name whose last label is a number is an IPv4 address or nothing.
        if let last = labels.last, !last.isEmpty, last.allSatisfy(\.isNumber) {
            guard let bytes = addressBytes(host, family: AF_INET) else {
                throw invalid("not an IPv4 address (four numbers 0–255 without leading zeros, e.g. 192.168.1.20)")
            }
            return .ip(presentation(bytes, family: AF_INET), bytes)
        }
        for (index, label) in labels.enumerated() {
            if label == "*" {
                guard index == 0 else { throw invalid("a wildcard may only be the whole first label, as in *.example.com") }
                guard labels.count >= 3 else {
                    throw invalid("a wildcard needs at least two labels after it (*.example.com, not *.com)")
                }
                continue
            }
            guard !label.isEmpty else { throw invalid("it has an empty label (two dots in a row, or a leading dot)") }
            guard label.utf8.count <= 63 else { throw invalid("the label \"\(label)\" is longer than 63 characters") }
            if label.contains("*") { throw invalid("a wildcard may only be the whole first label, as in *.example.com") }
            // Letters, digits and hyphens (RFC 1123); underscores too, which DNS names in use
            // carry and TLS clients compare byte for byte.
            guard label.utf8.allSatisfy({ isLetterOrDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }) else {
                throw invalid("the label \"\(label)\" has characters other than letters, digits, '-' and '_'")
            }
            guard label.first != "-" && label.last != "-" else {
                throw invalid("the label \"\(label)\" starts or ends with '-'")
            }
        }
        return .dns(host)
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func addressBytes(_ text: String, family: Int32) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: family == AF_INET ? 4 : 16)
        let parsed = bytes.withUnsafeMutableBytes { inet_pton(family, text, $0.baseAddress) }
        return parsed == 1 ? bytes : nil
    }

    private static func presentation(_ bytes: [UInt8], family: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        _ = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
