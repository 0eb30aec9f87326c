import BundleFormat
import Records
import Foundation

/// The small conversions a HAR entry needs: absolute URLs, query parameters, header look-ups,
/// reason phrases (times are `RecordTime`'s). Pure and locale-free, so the same records always
/// give the same bytes.
enum HARFields {
    // MARK: - URLs

    /// The absolute URL the client asked for: `baseURL` (the proxy as the client reached it,
    /// "http://192.168.1.20:8080"; "http://" is assumed when it has no scheme) followed by the
    /// request target. A target that is already absolute (absolute-form, "http://host/…") is
    /// kept. Any fragment is dropped (HAR URLs carry none) and characters a URI cannot hold
    /// (spaces, quotes, non-ASCII…) in the target are percent-encoded; existing escapes stay.
    static func absoluteURL(path: String, baseURL: String) -> String {
        let target = String(path.prefix { $0 != "#" })
        let lowered = target.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://"), let schemeEnd = target.range(of: "://")?.upperBound {
            return String(target[..<schemeEnd]) + percentEncodingInvalid(String(target[schemeEnd...]), keepBrackets: true)
        }
        var base = baseURL.trimmingCharacters(in: .whitespaces)
        if !base.contains("://") { base = "http://" + base }
        while base.hasSuffix("/") { base.removeLast() }
        let separator = target.hasPrefix("/") ? "" : "/"
        return base + separator + percentEncodingInvalid(target, keepBrackets: false)
    }

    /// Percent-encodes every byte RFC 3986 does not allow in a URI, and a `%` that does not start
    /// an escape. Square brackets are allowed only where they may delimit an IPv6 host.
    static func percentEncodingInvalid(_ text: String, keepBrackets: Bool) -> String {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            let allowed: Bool
            switch byte {
            case UInt8(ascii: "%"):
                allowed = index + 2 < bytes.count && isHex(bytes[index + 1]) && isHex(bytes[index + 2])
            case UInt8(ascii: "["), UInt8(ascii: "]"):
                allowed = keepBrackets
            default:
                allowed = isURIByte(byte)
            }
            if allowed {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hexDigit(byte >> 4))
                out.append(hexDigit(byte & 0x0F))
            }
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Unreserved, gen-delims (but `[`, `]`, `%` are handled apart) and sub-delims.
    private static func isURIByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "-._~:/?#@!$&'()*+,;=".utf8.contains(byte)
        }
    }

    private static func isHex(_ byte: UInt8) -> Bool { hexValue(byte) != nil }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }

    // MARK: - Query string

    /// The query parameters of a request target, in order: split on `&`, then at the first `=`
    /// (a parameter without one has the value ""), percent-escapes decoded (`+` is kept as is:
    /// HLS URLs carry tokens, not form data). Empty pieces ("a&&b") are skipped; a piece whose
    /// escapes do not decode to UTF-8 is kept as written.
    static func queryString(path: String) -> [(name: String, value: String)] {
        let target = path.prefix { $0 != "#" }
        guard let question = target.firstIndex(of: "?") else { return [] }
        let query = target[target.index(after: question)...]
        return query.split(separator: "&", omittingEmptySubsequences: true).map { piece in
            if let equals = piece.firstIndex(of: "=") {
                return (percentDecoded(piece[..<equals]), percentDecoded(piece[piece.index(after: equals)...]))
            }
            return (percentDecoded(piece), "")
        }
    }

    static func percentDecoded(_ text: Substring) -> String {
        guard text.contains("%") else { return String(text) }
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return String(validating: out, as: UTF8.self) ?? String(text)
    }

    // MARK: - Headers and statuses

    /// The first header with this name, compared case-insensitively.
    static func header(_ name: String, in headers: [RequestRecord.Header]) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The reason phrase for a status, as SwiftNIO writes it on the wire (the record keeps only the
    /// code); "" for 0 and codes without one.
    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 101: "Switching Protocols"
        case 102: "Processing"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 203: "Non-Authoritative Information"
        case 204: "No Content"
        case 205: "Reset Content"
        case 206: "Partial Content"
        case 207: "Multi-Status"
        case 208: "Already Reported"
        case 226: "IM Used"
        case 300: "Multiple Choices"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 305: "Use Proxy"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 402: "Payment Required"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 407: "Proxy Authentication Required"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Payload Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 416: "Range Not Satisfiable"
        case 417: "Expectation Failed"
        case 418: "I'm a teapot"
        case 421: "Misdirected Request"
        case 422: "Unprocessable Entity"
        case 423: "Locked"
        case 424: "Failed Dependency"
        case 426: "Upgrade Required"
        case 428: "Precondition Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 451: "Unavailable For Legal Reasons"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        case 506: "Variant Also Negotiates"
        case 507: "Insufficient Storage"
        case 508: "Loop Detected"
        case 510: "Not Extended"
        case 511: "Network Authentication Required"
        default: ""
        }
    }
}
