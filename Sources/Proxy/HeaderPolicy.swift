import Foundation
import NIOHTTP1

/// Which headers cross the proxy. End-to-end headers pass in both directions; hop-by-hop headers
/// (RFC 9110 §7.6.1) and those the proxy recomputes do not.
enum HeaderPolicy {
    private static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization",
        "te", "trailer", "trailers", "transfer-encoding", "upgrade",
    ]

    /// Request headers to send upstream. `Host` is curl's to set from the URL; `Accept-Encoding` is
    /// dropped for playlists because the proxy must read them (curl offers and decodes compression).
    static func upstreamRequestHeaders(from headers: HTTPHeaders, isPlaylist: Bool) -> [(name: String, value: String)] {
        let named = namedInConnection(headers.map { ($0.name, $0.value) })
        return headers.compactMap { name, value in
            let lower = name.lowercased()
            if hopByHop.contains(lower) || named.contains(lower) || lower == "host" || lower == "expect" { return nil }
            if isPlaylist && (lower == "accept-encoding" || lower == "range" || lower.hasPrefix("if-")) { return nil }
            return (name, value)
        }
    }

    /// Response headers to send to the client. For playlists the body is rewritten, so length,
    /// encoding and validators that describe the origin's bytes are dropped.
    static func clientResponseHeaders(
        from upstream: [(name: String, value: String)], isPlaylist: Bool
    ) -> HTTPHeaders {
        let named = namedInConnection(upstream)
        var headers = HTTPHeaders()
        for (name, value) in upstream {
            let lower = name.lowercased()
            if hopByHop.contains(lower) || named.contains(lower) { continue }
            if isPlaylist && playlistRecomputed.contains(lower) { continue }
            headers.add(name: name, value: value)
        }
        return headers
    }

    private static let playlistRecomputed: Set<String> = [
        "content-length", "content-encoding", "content-range", "etag", "content-md5", "accept-ranges",
    ]

    /// Header names listed in `Connection` (they are hop-by-hop too).
    private static func namedInConnection(_ headers: [(name: String, value: String)]) -> Set<String> {
        Set(headers.filter { $0.name.lowercased() == "connection" }
            .flatMap { $0.value.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
    }
}
