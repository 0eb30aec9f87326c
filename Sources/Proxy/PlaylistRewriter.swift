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
        var writer = URIWriter(self)
        playlist.rewriteURIs(writing: { facts, absolute, output in
            guard let absolute else { return false }
            return writer.write(facts, absolute: absolute, into: &output)
        })
    }

    /// The playlist's bytes with its URIs rewritten, the playlist itself unchanged (when nothing
    /// else works on it after the rewrite: cheaper than `rewrite` and `serialized`).
    func rewrittenBytes(of playlist: Playlist) -> [UInt8] {
        var starts: [Int]? = nil
        return rewrittenBytes(of: playlist, rewrittenAt: &starts)
    }

    /// The playlist rewritten for no session, which every session of it shares, and where a
    /// session's prefix goes in it: before every URI written as a path on the proxy. `clientPath`
    /// is the client's path without the session prefix (`RewriteCache.Key.sessionless`). Nil when
    /// the places are not known (a playlist the full rewrite handles).
    func sessionlessRewrite(of playlist: Playlist, clientPath: String) -> (bytes: [UInt8], prefixAt: [Int])? {
        var starts: [Int]? = []
        let bytes = forNoSession(clientPath: clientPath).rewrittenBytes(of: playlist, rewrittenAt: &starts)
        guard let starts else { return nil }
        return (bytes, Self.prefixPlaces(starts, in: bytes))
    }

    /// A plain media playlist (`Playlist.rewritingPlainMediaURIs`) rewritten in one pass, without
    /// the parse. For no session when `sessionlessPath` is given, its `rewrittenAt` then where a
    /// session's prefix goes (as `sessionlessRewrite` gives); else for this session, `rewrittenAt`
    /// empty. Nil for any other playlist.
    func onePassRewrite(of bytes: UnsafeBufferPointer<UInt8>, url: URL?, sessionlessPath: String?) -> OnePassMediaRewrite? {
        var writer = URIWriter(sessionlessPath.map { forNoSession(clientPath: $0) } ?? self)
        guard var rewrite = Playlist.rewritingPlainMediaURIs(bytes, url: url, writing: { facts, absolute, output in
            guard let absolute else { return false }
            return writer.write(facts, absolute: absolute, into: &output)
        }) else { return nil }
        rewrite.rewrittenAt = sessionlessPath == nil ? [] : Self.prefixPlaces(rewrite.rewrittenAt, in: rewrite.bytes)
        return rewrite
    }

    /// This rewriter for the same route without a session prefix.
    private func forNoSession(clientPath: String) -> PlaylistRewriter {
        var rewriter = self
        rewriter.request = ProxyPath(route: request.route)
        rewriter.clientPath = clientPath
        return rewriter
    }

    /// Paths on the proxy begin with "/"; rendition reports are relative ("./", "../") and
    /// forward-mode URIs absolute: neither carries the prefix.
    private static func prefixPlaces(_ starts: [Int], in bytes: [UInt8]) -> [Int] {
        starts.filter { bytes[$0] == UInt8(ascii: "/") }
    }

    private func rewrittenBytes(of playlist: Playlist, rewrittenAt starts: inout [Int]?) -> [UInt8] {
        var writer = URIWriter(self)
        return playlist.bytesRewritingURIs(rewrittenAt: &starts) { facts, absolute, output in
            guard let absolute else { return false }
            return writer.write(facts, absolute: absolute, into: &output)
        }
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

    func tag(for reference: URIPlaceFacts) -> ResourceTag {
        let kind = ResourceTag.Kind(reference)
        switch reference.kind {
        case .variant:
            return ResourceTag(kind: kind, variant: reference.variantIndex, pathway: reference.pathway)
        case .iFrameVariant:
            return ResourceTag(kind: kind, iFrameVariant: reference.variantIndex, pathway: reference.pathway)
        case .rendition:
            return ResourceTag(kind: kind, rendition: reference.renditionIndex, pathway: reference.pathway)
        case .renditionReport:
            return ResourceTag(kind: kind, pathway: playlistTag.pathway)
        case .sessionKey, .sessionData, .steering, .dateRangeAsset:
            return ResourceTag(kind: kind)
        case .segment, .part, .preloadHint, .map, .key:
            // What a media playlist names inherits its variant, rendition, backup flag and pathway.
            var tag = playlistTag
            tag.kind = kind
            tag.msn = reference.msn
            tag.part = reference.partIndex
            return tag
        }
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

/// Writes what one playlist's URIs become, straight into the rewrite's output; it learns their hosts
/// once each as it goes.
private struct URIWriter {
    let rewriter: PlaylistRewriter
    let sessionPrefix: [UInt8]
    /// Read once: reaching it through `rewriter.request` for every URI costs a copy of the request.
    let isForward: Bool
    /// One allowlist update per host and playlist, not per URI.
    var learned: Set<String> = []
    /// The origin of the last URI parsed: a playlist's URIs mostly share one, and a URI under it
    /// needs only its path and query cut off, not a parse of its own.
    var lastOrigin: Origin?
    /// A segment's tag, which differs from one segment to the next by its MSN alone.
    let segmentTag: ResourceTag

    init(_ rewriter: PlaylistRewriter) {
        self.rewriter = rewriter
        self.sessionPrefix = Array(rewriter.request.sessionPrefix.utf8)
        self.isForward = rewriter.request.isForward
        self.segmentTag = rewriter.tag(for: URIPlaceFacts(kind: .segment))
    }

    /// `scheme://authority` as written, and its parts.
    final class Origin {
        let location: UpstreamLocation
        let text: [UInt8]
        let scheme: [UInt8]
        let authority: [UInt8]
        /// The paths of this playlist's segments on this origin: the tag's other fields, the prefix and
        /// the origin written once, not for every segment.
        var segmentPaths: ProxyPath.SegmentPaths?

        init(_ location: UpstreamLocation) {
            self.location = location
            self.scheme = Array(location.scheme.utf8)
            self.authority = Array(location.authority.utf8)
            self.text = scheme + Array("://".utf8) + authority
        }

        /// What follows this origin in `absolute` when it is a path or query with no fragment; nil otherwise.
        func pathAndQuery(of absolute: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
            guard absolute.count > text.count else { return nil }
            let matches = text.withUnsafeBufferPointer { memcmp(absolute.baseAddress!, $0.baseAddress!, $0.count) == 0 }
            let rest = UnsafeBufferPointer(rebasing: absolute[text.count...])
            guard matches, rest[0] == UInt8(ascii: "/") || rest[0] == UInt8(ascii: "?"),
                  memchr(rest.baseAddress!, 0x23, rest.count) == nil else { return nil }
            return rest
        }
    }

    /// Appends the proxy's URI for the absolute URI of a place to `output`; false when it stays as
    /// written (data:, skd:// and other non-HTTP URIs).
    mutating func write(_ facts: URIPlaceFacts, absolute: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) -> Bool {
        if let origin = lastOrigin, let rest = origin.pathAndQuery(of: absolute) {
            write(facts, origin: origin, pathAndQuery: rest, into: &output)
            return true
        }
        guard let location = UpstreamLocation(absolute: String(decoding: absolute, as: UTF8.self)) else { return false }
        let origin = Origin(location)
        if learned.insert(location.authority).inserted { rewriter.allowlist.learn(location) }
        if origin.pathAndQuery(of: absolute) != nil { lastOrigin = origin }
        let rest = Array(location.pathAndQuery.utf8)
        rest.withUnsafeBufferPointer { write(facts, origin: origin, pathAndQuery: $0, into: &output) }
        return true
    }

    private func write(_ facts: URIPlaceFacts, origin: Origin, pathAndQuery: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) {
        if facts.kind == .segment && !isForward, let msn = facts.msn {
            if origin.segmentPaths == nil {
                origin.segmentPaths = sessionPrefix.withUnsafeBufferPointer { prefix in
                    origin.scheme.withUnsafeBufferPointer { scheme in
                        origin.authority.withUnsafeBufferPointer { authority in
                            ProxyPath.SegmentPaths(prefix: prefix, tag: segmentTag, scheme: scheme, authority: authority)
                        }
                    }
                }
            }
            origin.segmentPaths.unsafelyUnwrapped.append(msn: msn, pathAndQuery: pathAndQuery, to: &output)
            return
        }
        let tag = rewriter.tag(for: facts)
        guard isForward || facts.kind == .renditionReport else {
            append(tag, origin: origin, pathAndQuery: pathAndQuery, into: &output)
            return
        }
        let request = rewriter.request
        let path = String(decoding: pathAndQuery, as: UTF8.self)
        var uri = request.rewrittenURI(tag: tag, origin: origin.location, pathAndQuery: Substring(path))
        // EXT-X-RENDITION-REPORT URIs must be relative to the playlist (rfc8216bis 4.4.5.4).
        if facts.kind == .renditionReport {
            if case .forward(_, let playlist) = request.route {
                // Forward mode writes whole URLs; a report on the playlist's own host becomes a path again.
                let upstream = origin.location.with(pathAndQuery: path)
                if playlist.scheme == upstream.scheme, playlist.normalizedAuthority == upstream.normalizedAuthority {
                    uri = PlaylistRewriter.relativeReference(
                        from: String(playlist.path), to: ForwardTag.appending(tag, to: upstream.pathAndQuery))
                }
            } else {
                uri = PlaylistRewriter.relativeReference(from: rewriter.clientPath, to: uri)
            }
        }
        output.append(contentsOf: uri.utf8)
    }

    /// `<prefix>/<tag>/<scheme>/<authority><path and query>`: a path on the proxy.
    private func append(_ tag: ResourceTag, origin: Origin, pathAndQuery: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) {
        sessionPrefix.withUnsafeBufferPointer { prefix in
            origin.scheme.withUnsafeBufferPointer { scheme in
                origin.authority.withUnsafeBufferPointer { authority in
                    ProxyPath.appendRewrittenPath(
                        prefix: prefix, tag: tag, scheme: scheme, authority: authority, pathAndQuery: pathAndQuery, to: &output)
                }
            }
        }
    }
}
