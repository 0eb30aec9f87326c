import Addressing
import Foundation
import HLS
import NIOCore

/// Points every URI of a playlist back at the proxy, tagged with what it is (see `ResourceTag`),
/// in the session of the request that fetched the playlist. Non-URI lines are not touched.
struct PlaylistRewriter {
    /// The request that fetched the playlist: gives the session prefix.
    var request: ProxyPath
    /// The path the client asked for: relative references are relative to it.
    var clientPath: String
    /// What the playlist itself is: segments inherit its variant, rendition and backup flag.
    var playlistTag: ResourceTag
    var allowlist: HostAllowlist

    func rewrite(_ playlist: inout Playlist) {
        playlist.rewriteURIs(transform())
    }

    /// The playlist's bytes with its URIs rewritten, the playlist itself unchanged (when nothing
    /// else works on it after the rewrite: cheaper than `rewrite` and `serialized`).
    func rewrittenBytes(of playlist: Playlist) -> [UInt8] {
        playlist.bytesRewritingURIs(transform())
    }

    /// The playlist rewritten for no session, which every session of it shares, and where a
    /// session's prefix goes in it: before every URI written as a path on the proxy. `clientPath`
    /// is the client's path without the session prefix (`RewriteCache.Key.sessionless`). Nil when
    /// the places are not known (a playlist the full rewrite handles).
    func sessionlessRewrite(of playlist: Playlist, clientPath: String) -> (bytes: [UInt8], prefixAt: [Int])? {
        var sessionless = self
        sessionless.request = ProxyPath(route: request.route)
        sessionless.clientPath = clientPath
        var starts: [Int]? = []
        let bytes = playlist.bytesRewritingURIs(sessionless.transform(), rewrittenAt: &starts)
        guard let starts else { return nil }
        // Paths on the proxy begin with "/"; rendition reports are relative ("./", "../") and
        // forward-mode URIs absolute: neither carries the prefix.
        return (bytes, starts.filter { bytes[$0] == UInt8(ascii: "/") })
    }

    /// `bytes` with `prefix` inserted at each of `offsets` (ascending).
    static func splice(_ prefix: String, into bytes: ByteBufferView, at offsets: [Int]) -> ByteBuffer {
        var output = ByteBuffer()
        output.reserveCapacity(bytes.count + offsets.count * prefix.utf8.count)
        var cursor = bytes.startIndex
        for offset in offsets {
            output.writeBytes(bytes[cursor..<(bytes.startIndex + offset)])
            output.writeString(prefix)
            cursor = bytes.startIndex + offset
        }
        output.writeBytes(bytes[cursor...])
        return output
    }

    /// What one playlist's URIs become; it learns their hosts once each as it goes.
    private func transform() -> (URIReference) -> String? {
        var learned: Set<String> = []  // one allowlist update per host and playlist, not per URI
        var lastAuthority = ""  // the host of the URI before, most often this one's: no hashing
        var origins = OriginShortcut()
        let sessionPrefix = request.sessionPrefix
        return { reference in
            guard let absolute = reference.absoluteString, let (origin, pathAndQuery) = origins.split(absolute) else {
                return nil  // data:, skd:// and other non-HTTP URIs stay as they are
            }
            if origin.authority != lastAuthority {
                lastAuthority = origin.authority
                if learned.insert(origin.authority).inserted { allowlist.learn(origin) }
            }
            let uri = request.rewrittenURI(tag: tag(for: reference), origin: origin, pathAndQuery: pathAndQuery, sessionPrefix: sessionPrefix)
            // EXT-X-RENDITION-REPORT URIs must be relative to the playlist (rfc8216bis 4.4.5.4).
            guard reference.kind == .renditionReport else { return uri }
            guard case .forward(_, let playlist) = request.route else { return Self.relativeReference(from: clientPath, to: uri) }
            // Forward mode writes whole URLs; a report on the playlist's own host becomes a path again.
            let upstream = origin.with(pathAndQuery: String(pathAndQuery))
            guard playlist.scheme == upstream.scheme, playlist.normalizedAuthority == upstream.normalizedAuthority else { return uri }
            return Self.relativeReference(
                from: String(playlist.path), to: ForwardTag.appending(tag(for: reference), to: upstream.pathAndQuery))
        }
    }

    func tag(for reference: URIReference) -> ResourceTag {
        var tag = ResourceTag(
            kind: .segment, variant: playlistTag.variant, rendition: playlistTag.rendition,
            iFrameVariant: playlistTag.iFrameVariant, msn: reference.msn, backup: playlistTag.backup,
            pathway: playlistTag.pathway)
        switch reference.kind {
        case .variant:
            tag = ResourceTag(kind: .media, variant: reference.variantIndex, pathway: reference.pathway)
        case .iFrameVariant:
            tag = ResourceTag(kind: .media, iFrameVariant: reference.variantIndex, pathway: reference.pathway)
        case .rendition:
            tag = ResourceTag(kind: .media, rendition: reference.rendition?.index, pathway: reference.pathway)
        case .renditionReport:
            tag = ResourceTag(kind: .media, pathway: playlistTag.pathway)
        case .segment:
            break
        case .part:
            tag.kind = .part
            tag.part = reference.partIndex
        case .preloadHint:
            // A hint names a part (it has the part's index) or an init section (TYPE=MAP).
            tag.kind = reference.partIndex == nil ? .initSection : .part
            tag.part = reference.partIndex
        case .map:
            tag.kind = .initSection
        case .key:
            tag.kind = .key
        case .sessionKey:
            tag = ResourceTag(kind: .key)
        case .sessionData:
            tag = ResourceTag(kind: .sessionData)
        case .steering:
            tag = ResourceTag(kind: .steering)
        case .dateRangeAsset:
            tag = ResourceTag(kind: .asset)
        }
        return tag
    }

    /// A relative reference that resolves, against `base`, to `target` (both absolute paths,
    /// possibly with a query on `target`).
    static func relativeReference(from base: String, to target: String) -> String {
        let basePath = base.split(separator: "?", maxSplits: 1).first.map(String.init) ?? base
        var baseDirs = basePath.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        baseDirs = baseDirs.dropLast()  // the last component is the playlist's file name
        let queryStart = target.firstIndex(of: "?") ?? target.endIndex
        let targetParts = target[..<queryStart].split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        var common = 0
        for (a, b) in zip(baseDirs, targetParts.dropLast()) {
            guard a == b else { break }
            common += 1
        }
        let ups = Array(repeating: "..", count: baseDirs.count - common)
        let rest = targetParts.dropFirst(common).map(String.init)
        var text = (ups + rest).joined(separator: "/")
        if text.isEmpty || text.hasPrefix("/") || text.split(separator: "/").first?.contains(":") == true {
            text = "./" + text
        }
        return text + target[queryStart...]
    }
}

/// The origin (`scheme://authority` as written) of the last URI parsed: a playlist's URIs mostly
/// share one, and a URI under it needs only its path and query cut off, not a parse of its own.
private struct OriginShortcut {
    private var origin: (text: String, location: UpstreamLocation)?

    /// The URI's scheme and authority (in `location`; its path is another URI's) and its path and
    /// query, a slice of `absolute`; nil when it is no absolute http(s) URL.
    mutating func split(_ absolute: String) -> (location: UpstreamLocation, pathAndQuery: Substring)? {
        if let origin, let rest = Self.pathAndQuery(of: absolute, under: origin.text) {
            return (origin.location, rest)
        }
        guard let location = UpstreamLocation(absolute: absolute) else { return nil }
        let text = location.scheme + "://" + location.authority
        if absolute.hasPrefix(text) { origin = (text, location) }
        return (location, Substring(location.pathAndQuery))
    }

    /// What follows `origin` in `absolute` when it is a path or query with no fragment; nil otherwise.
    private static func pathAndQuery(of absolute: String, under origin: String) -> Substring? {
        var bytes = absolute
        var origin = origin
        let matches = bytes.withUTF8 { text in
            origin.withUTF8 { prefix -> Bool in
                guard text.count > prefix.count, memcmp(text.baseAddress!, prefix.baseAddress!, prefix.count) == 0 else { return false }
                let rest = UnsafeBufferPointer(rebasing: text[prefix.count...])
                return (rest[0] == UInt8(ascii: "/") || rest[0] == UInt8(ascii: "?")) && !rest.contains(UInt8(ascii: "#"))
            }
        }
        guard matches else { return nil }
        return Substring(absolute.utf8.dropFirst(origin.utf8.count))
    }
}
