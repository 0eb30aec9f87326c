import Addressing
import Foundation
import HLS

/// What `--redact` removes before anything is written: cookies and credentials in headers, user
/// information and query parameters in URLs (except the `_HLS_` delivery directives, which say
/// what was asked for and carry no secret), and the same query parameters in the URIs inside
/// playlists.
public enum Redactor {
    /// Headers dropped whole.
    public static let droppedHeaders: Set<String> = ["cookie", "set-cookie", "authorization", "proxy-authorization"]

    public static func headers(_ headers: [Exchange.Header]) -> [Exchange.Header] {
        headers.filter { !droppedHeaders.contains($0.name.lowercased()) }
    }

    /// The URL without user information, fragment, or query parameters other than `_HLS_*`.
    /// Relative references are handled too (playlist URIs).
    public static func url(_ text: String) -> String {
        guard var parts = URLComponents(string: text) else { return dropQuery(text) }
        parts.user = nil
        parts.password = nil
        parts.fragment = nil
        if let items = parts.queryItems {
            let kept = items.filter { $0.name.hasPrefix("_HLS_") }
            parts.queryItems = kept.isEmpty ? nil : kept
        }
        return parts.string ?? dropQuery(text)
    }

    /// A playlist's bytes with every URI redacted like `url(_:)`; other bodies unchanged.
    public static func body(_ bytes: [UInt8]) -> [UInt8] {
        guard ResourceGuess.isPlaylist(body: bytes), var playlist = try? Playlist(bytes: bytes) else { return bytes }
        playlist.rewriteURIs { reference in
            let redacted = url(reference.original)
            return redacted == reference.original ? nil : redacted
        }
        return playlist.serialized()
    }

    private static func dropQuery(_ text: String) -> String {
        String(text.prefix { $0 != "?" && $0 != "#" })
    }
}
