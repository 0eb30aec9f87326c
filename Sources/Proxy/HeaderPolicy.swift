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

    /// Response headers to send to the client. For playlists the body is rewritten, so length,
    /// encoding and validators that describe the origin's bytes are dropped. A header that is not
    /// valid HTTP (a name that is no RFC 9110 token, a value with CR, LF or NUL) is dropped and
    /// named in `invalid`: forwarding it would break the response (NIO refuses to write it).
    static func clientResponseHeaders(
        from upstream: [(name: String, value: String)], isPlaylist: Bool
    ) -> (headers: HTTPHeaders, invalid: [String]) {
        // Built as an array and handed to HTTPHeaders whole: its `add` checks every name again.
        var kept: [(String, String)] = []
        kept.reserveCapacity(upstream.count + 3)
        var invalid: [String] = []
        // A `Connection` that names headers (rare: most say `keep-alive`) drops them afterwards.
        var namesHeaders = false
        // The first Content-Length's value; a later one that differs, or one that is not a whole
        // number, makes them all unusable for framing.
        var length: String?
        var lengthUsable = true
        for (name, value) in upstream {
            let known = KnownHeaderName(name)
            if known == .connection, KnownHeaderName(value) != .keepAlive { namesHeaders = true }
            guard HTTPFieldSyntax.isToken(name), HTTPFieldSyntax.isFieldValue(value) else {
                invalid.append(name)
                continue
            }
            if let known {
                if known.isHopByHop { continue }
                if isPlaylist && known.describesOriginBytes { continue }
                if known == .contentLength {
                    // One length the client can frame by (repeats of the same value count once).
                    if let length {
                        if length != value { lengthUsable = false }
                        continue
                    }
                    if !isWholeNumber(value) { lengthUsable = false }
                    length = value
                }
            }
            kept.append((name, value))
        }
        let named = namesHeaders ? namedInConnection(upstream) : NameSet([])
        if !named.isEmpty { kept.removeAll { named.contains($0.0) } }
        if length != nil, !lengthUsable {
            // Dropped, and the body goes out chunked instead; every length is named.
            kept.removeAll { KnownHeaderName($0.0) == .contentLength }
            for (name, value) in upstream where KnownHeaderName(name) == .contentLength && HTTPFieldSyntax.isFieldValue(value) && !named.contains(name) {
                invalid.append("\(name): \(value.prefix(40))")
            }
        }
        return (HTTPHeaders(kept), invalid)
    }

    private static func isWholeNumber(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.count <= 18 && value.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
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
        private let names: [String]

        init(_ names: [String]) {
            self.names = names
        }

        var isEmpty: Bool { names.isEmpty }

        func contains(_ name: String) -> Bool {
            !names.isEmpty && names.contains { name.asciiCaseInsensitiveEquals($0) }
        }
    }
}
