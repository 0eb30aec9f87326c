import CMCD
import Chaos
import NIOHTTP1
import Upstream

/// Which headers cross the proxy. End-to-end headers pass in both directions; hop-by-hop headers
/// (RFC 9110 §7.6.1) and those the proxy recomputes do not.
///
/// Runs for every request and response, so names are compared as ASCII bytes, without building
/// lowercased copies.
enum HeaderPolicy {
    /// Request headers to send upstream. `Host` is curl's to set from the URL; `Accept-Encoding` is
    /// dropped for playlists because the proxy must read them (curl offers and decodes compression).
    /// `dropCMCD`: the four `CMCD-*` headers stay behind too (`stripCMCD`).
    static func upstreamRequestHeaders(from headers: HTTPHeaders, isPlaylist: Bool, dropCMCD: Bool = false) -> [(name: String, value: String)] {
        let named = namedInConnection(headers)
        var kept: [(name: String, value: String)] = []
        kept.reserveCapacity(headers.count)
        for (name, value) in headers {
            if let known = KnownHeaderName(name) {
                if known.isHopByHop || known == .host || known == .expect { continue }
                if isPlaylist && (known == .acceptEncoding || known == .range) { continue }
            }
            if named.contains(name) { continue }
            if isPlaylist && name.asciiCaseInsensitiveHasPrefix("if-") { continue }
            if dropCMCD && CMCDStrip.isCMCDHeader(name) { continue }
            kept.append((name, value))
        }
        return kept
    }

    /// Response headers to send to the client, written as the head's fields. For playlists the body
    /// is rewritten, so length, encoding and validators that describe the origin's bytes are dropped.
    /// A header that is not valid HTTP (a name that is no RFC 9110 token, a value with CR, LF or NUL)
    /// is dropped and named in `invalid`: forwarding it would break the response. `length` is the
    /// `Content-Length` kept (nil: none, or none the client could frame by).
    static func clientResponseHeaders(
        from upstream: UpstreamHeaders, isPlaylist: Bool
    ) -> (fields: ResponseFields, length: Int?, invalid: [String]) {
        var fields = ResponseFields()
        var invalid: [String] = []
        // A `Connection` that names headers (rare: most say `keep-alive`) drops them afterwards.
        var namesHeaders = false
        // The first Content-Length; a later one that differs, or one that is not a whole number,
        // makes them all unusable for framing.
        var length: Int?
        var lengthUsable = true
        upstream.forEachField { name, value in
            let known = KnownHeaderName(bytes: name)
            if known == .connection, KnownHeaderName(bytes: value) != .keepAlive { namesHeaders = true }
            guard HTTPFieldSyntax.isToken(bytes: name), HTTPFieldSyntax.isFieldValue(bytes: value) else {
                invalid.append(String(decoding: name, as: UTF8.self))
                return
            }
            if let known {
                if known.isHopByHop { return }
                if isPlaylist && known.describesOriginBytes { return }
                if known == .contentLength {
                    // One length the client can frame by (repeats of the same value count once).
                    let number = wholeNumber(value)
                    if length != nil || !lengthUsable {
                        if number != length { lengthUsable = false }
                        return
                    }
                    if number == nil { lengthUsable = false }
                    length = number
                }
            }
            fields.add(name: name, value: value, known: known)
        }
        let named = namesHeaders ? namedInConnection(upstream) : NameSet([])
        for name in named.names { fields.remove(name) }
        if !lengthUsable {
            // Dropped, and the body goes out chunked instead; every length is named.
            fields.remove("content-length")
            for (name, value) in upstream where KnownHeaderName(name) == .contentLength && HTTPFieldSyntax.isFieldValue(value) && !named.contains(name) {
                invalid.append("\(name): \(value.prefix(40))")
            }
            return (fields, nil, invalid)
        }
        return (fields, named.contains("content-length") ? nil : length, invalid)
    }

    /// A `Content-Length`'s digits as a number; nil when they are not a whole number of at most 18 digits.
    private static func wholeNumber(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 18 else { return nil }
        var number = 0
        for byte in bytes {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            number = number * 10 + Int(byte - 0x30)
        }
        return number
    }

    /// Header names listed in `Connection` (they are hop-by-hop too; RFC 9110 §7.6.1). Empty,
    /// without allocating, when there is no such header or it lists only `keep-alive` (hop-by-hop
    /// anyway): the `Connection: keep-alive` most origins send on every response.
    static func namedInConnection(_ headers: some Sequence<(name: String, value: String)>) -> NameSet {
        var names: [String] = []
        for (name, value) in headers where KnownHeaderName(name) == .connection {
            var value = value
            value.withUTF8 { bytes in
                var start = 0
                while start < bytes.count {
                    let end = bytes[start...].firstIndex(of: UInt8(ascii: ",")) ?? bytes.count
                    let option = trimmed(bytes[start..<end])
                    start = end + 1
                    // `keep-alive` names a header that is hop-by-hop anyway.
                    if option.isEmpty || KnownHeaderName(bytes: UnsafeBufferPointer(rebasing: option)) == .keepAlive { continue }
                    names.append(String(decoding: option, as: UTF8.self))
                }
            }
        }
        return NameSet(names)
    }

    private static func trimmed(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>> {
        let isBlank = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        guard let first = bytes.firstIndex(where: { !isBlank($0) }), let last = bytes.lastIndex(where: { !isBlank($0) }) else { return bytes[bytes.startIndex..<bytes.startIndex] }
        return bytes[first...last]
    }

    /// The header names a `Connection` header lists, matched case-insensitively (usually none).
    struct NameSet {
        let names: [String]

        init(_ names: [String]) {
            self.names = names
        }

        var isEmpty: Bool { names.isEmpty }

        func contains(_ name: String) -> Bool {
            !names.isEmpty && names.contains { name.asciiCaseInsensitiveEquals($0) }
        }
    }
}
