import Addressing
import Chaos
import Foundation
import HLS
import NIOCore

/// Turns an upstream playlist into the one the client gets: the version to serve (`freeze`, `lag`),
/// what the session learns from it, URIs pointed back at the proxy, playlist surgery, text damage.
struct PlaylistResponder {
    var request: ProxyPath
    var clientPath: String
    var allowlist: HostAllowlist
    var session: Session
    var recordsHistory: Bool
    /// How far back the history must reach (`RuleEngine.historyHorizon`).
    var historyHorizon: Duration?
    var now: Duration
    var cache: RewriteCache
    /// Told when the session's playlist history forgot versions to stay within its budget.
    var historyNotice: LimitNotice?

    struct Result {
        /// A buffer shared with the rewrite cache: served to every client without a copy.
        var body: ByteBuffer
        /// False when the body did not parse as a playlist and is the origin's, untouched.
        var isPlaylist: Bool
    }

    /// `upstream` is the origin's body as it arrived: served from the cache, rewritten from or passed
    /// on without a copy when no rule needs its bytes elsewhere.
    func respond(upstream: ByteBuffer, effectiveURL: String, tag: ResourceTag, steps: [ContentStep]) -> Result {
        var served = upstream
        if recordsHistory {
            let bytes = Array(upstream.readableBytesView)
            let resource = Self.historyKey(tag: tag, url: effectiveURL)
            let (history, forgotten) = session.memory.withLockedValue { memory in
                let forgotten = memory.rules.recordPlaylist(bytes, resource: resource, at: now, horizon: historyHorizon)
                return (memory.rules.histories[resource], forgotten)
            }
            if forgotten > 0, let historyNotice {
                let budget = session.memory.withLockedValue { $0.rules.historyBudget }
                historyNotice.hit { _ in "session \(session.id): oldest playlist versions forgotten to stay within \(budget) bytes" }
            }
            served = ByteBuffer(bytes: PlaylistSurgery.body(serving: bytes, steps: steps, history: history, now: now))
        }
        let key = RewriteCache.Key(
            upstreamURL: effectiveURL, tag: tag, sessionPrefix: request.sessionPrefix, clientPath: clientPath, forward: request.isForward)
        if steps.isEmpty, let hit = cache.lookup(key, upstream: served) {
            session.memory.withLockedValue { $0.catalog.learn(hit.summary, tag: tag) }
            return Result(body: hit.output, isPlaylist: true)
        }
        // The same playlist for no session: shared by every session (nil with rules, or when the
        // client's path does not begin with the session prefix).
        let sessionless = steps.isEmpty ? key.sessionless : nil
        // Another session has rewritten these bytes already: splice this session's prefix in.
        if let sessionless, sessionless != key, let shared = cache.lookup(sessionless, upstream: served) {
            session.memory.withLockedValue { $0.catalog.learn(shared.summary, tag: tag) }
            return Result(body: store(key, shared), isPlaylist: true)
        }
        let url = URL(string: effectiveURL)
        let rewriter = PlaylistRewriter(request: request, clientPath: clientPath, playlistTag: tag, allowlist: allowlist)
        // A plain media playlist (most live ones, new at every reload) is rewritten without the parse.
        if steps.isEmpty, let rewrite = served.withUnsafeReadableBytes({
            rewriter.onePassRewrite(of: $0.assumingMemoryBound(to: UInt8.self), url: url, sessionlessPath: sessionless?.clientPath)
        }) {
            let entry = RewriteCache.Entry(
                upstream: served, output: ByteBuffer(bytes: rewrite.bytes), summary: SessionCatalog.Summary(rewrite), prefixAt: rewrite.rewrittenAt)
            return Result(body: keep(entry, tag: tag, sessionless: sessionless, key: key), isPlaylist: true)
        }
        guard var playlist = try? Playlist(bytes: Array(served.readableBytesView), url: url) else {
            // Not a playlist after all: the client gets exactly what the origin sent.
            return Result(body: served, isPlaylist: false)
        }
        let summary = SessionCatalog.Summary(playlist)
        guard !steps.isEmpty else {
            if let sessionless, let rewrite = rewriter.sessionlessRewrite(of: playlist, clientPath: sessionless.clientPath) {
                let entry = RewriteCache.Entry(upstream: served, output: ByteBuffer(bytes: rewrite.bytes), summary: summary, prefixAt: rewrite.prefixAt)
                return Result(body: keep(entry, tag: tag, sessionless: sessionless, key: key), isPlaylist: true)
            }
            let entry = RewriteCache.Entry(upstream: served, output: ByteBuffer(bytes: rewriter.rewrittenBytes(of: playlist)), summary: summary)
            return Result(body: keep(entry, tag: tag, sessionless: nil, key: key), isPlaylist: true)
        }
        session.memory.withLockedValue { $0.catalog.learn(summary, tag: tag) }
        // Surgery works on the rewritten playlist (a backup variant copies a rewritten URI).
        rewriter.rewrite(&playlist)
        PlaylistSurgery.apply(steps, to: &playlist, backupURI: Self.backupURI)
        let body = ByteBuffer(bytes: PlaylistSurgery.damage(playlist.serialized(), steps: steps, kind: playlist.kind))
        return Result(body: body, isPlaylist: true)
    }

    /// A new rewrite learnt by the session and cached: under `sessionless` for every session when
    /// given (and this session's copy, with its prefix, under `key`), else under `key` alone.
    private func keep(_ entry: RewriteCache.Entry, tag: ResourceTag, sessionless: RewriteCache.Key?, key: RewriteCache.Key) -> ByteBuffer {
        session.memory.withLockedValue { $0.catalog.learn(entry.summary, tag: tag) }
        guard let sessionless else {
            cache.store(key, entry)
            return entry.output
        }
        let kept = cache.store(sessionless, entry)
        return sessionless == key ? kept.output : store(key, kept)
    }

    /// This session's rewrite made from the sessionless one, kept under `key` (sharing its copy of the
    /// upstream bytes, which the lookup found equal).
    private func store(_ key: RewriteCache.Key, _ shared: RewriteCache.Entry) -> ByteBuffer {
        let body = shared.prefixAt.isEmpty
            ? shared.output : PlaylistRewriter.splice(request.sessionPrefix, into: shared.output.readableBytesView, at: shared.prefixAt)
        cache.store(key, RewriteCache.Entry(upstream: shared.upstream, output: body, summary: shared.summary))
        return body
    }

    /// What a playlist's history is kept under: which playlist it is (the tag without MSN) and its
    /// path. The query is left out: `_HLS_msn`, `_HLS_part` and rotating tokens change on every
    /// reload of the same playlist.
    static func historyKey(tag: ResourceTag, url: String) -> String {
        var identity = tag
        identity.msn = nil
        identity.part = nil
        let path = url.utf8.firstIndex(of: UInt8(ascii: "?")).map { String(url[..<$0]) } ?? url
        return "\(identity) \(path)"
    }

    /// The backup copy of a variant: the same rewritten URI with the tag marked `.b`.
    static func backupURI(_ primary: Variant) -> String {
        guard let path = ProxyPath(written: primary.uri), var tag = path.tag, let upstream = path.upstream else { return primary.uri }
        tag.backup = true
        return path.rewrittenURI(tag: tag, upstream: upstream)
    }
}
