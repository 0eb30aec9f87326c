import Addressing
import NIOConcurrencyHelpers
import NIOCore

/// Rewritten playlists, so that a VOD playlist many devices (or one player, again and again) fetch
/// is parsed and rewritten once. An entry is used only when the upstream bytes are the same and no
/// rule changed the playlist; rewriting depends on nothing else than the key.
///
/// Each session's rewrite is kept under its own key; the rewrite without a session prefix is kept
/// too (`Key.sessionless`) with where the prefix goes, so that when a live playlist changes, the
/// first session to reload it parses and rewrites it and every other session splices its prefix in.
///
/// Bounded in bytes (upstream and rewritten bodies together): the oldest entries are dropped first.
final class RewriteCache: Sendable {
    struct Key: Hashable {
        var upstreamURL: String
        var tag: ResourceTag
        var sessionPrefix: String
        var clientPath: String
        /// Forward-mode URIs are written differently for the same upstream and client path.
        var forward: Bool

        /// The key of the same playlist's rewrite for no session; nil when the client's path does not
        /// begin with the session prefix.
        var sessionless: Key? {
            guard clientPath.hasPrefix(sessionPrefix) else { return nil }
            return Key(upstreamURL: upstreamURL, tag: tag, sessionPrefix: "", clientPath: String(clientPath.dropFirst(sessionPrefix.count)), forward: forward)
        }
    }

    struct Entry: Sendable {
        /// The origin's body, as it arrived (see `store`).
        var upstream: ByteBuffer
        var output: ByteBuffer
        var summary: SessionCatalog.Summary
        /// For a sessionless entry: where a session's prefix goes in `output`.
        var prefixAt: [Int] = []
        /// The two bodies plus about what the summary's segment list and the offsets take.
        var byteCount: Int {
            var count = upstream.readableBytes + output.readableBytes + 8 * prefixAt.count
            if case .media(let segments, _, _) = summary { count += 24 * segments.count }
            return count
        }
    }

    let byteLimit: Int
    private let notice: LimitNotice?
    private let state = NIOLockedValueBox(State())

    private struct State {
        var entries: [Key: (entry: Entry, generation: Int)] = [:]
        /// The key last stored for each upstream URL (`expectedUpstream`).
        var latest: [String: Key] = [:]
        /// Keys in the order they were stored; a replaced entry leaves a stale pair behind.
        var order: [(key: Key, generation: Int)] = []
        var head = 0
        var generation = 0
        var bytes = 0
    }

    init(byteLimit: Int = 64 * 1024 * 1024, notice: LimitNotice? = nil) {
        self.byteLimit = byteLimit
        self.notice = notice
    }

    var byteCount: Int { state.withLockedValue { $0.bytes } }
    var count: Int { state.withLockedValue { $0.entries.count } }

    /// The origin's body last kept for `upstreamURL`, whatever the session or tag: what the next
    /// fetch of it most likely returns (`UpstreamRequest.expectedBody`).
    func expectedUpstream(for upstreamURL: String) -> ByteBuffer? {
        state.withLockedValue { state in state.latest[upstreamURL].flatMap { state.entries[$0]?.entry.upstream } }
    }

    func lookup(_ key: Key, upstream: ByteBuffer) -> Entry? {
        guard let entry = state.withLockedValue({ $0.entries[key]?.entry }), entry.upstream == upstream else { return nil }
        return entry
    }

    /// Keeps `entry` under `key`; returns it as kept, for another key to share its bytes.
    @discardableResult
    func store(_ key: Key, _ entry: Entry) -> Entry {
        // An entry that would push out a quarter of the cache at once is not worth keeping.
        guard entry.byteCount <= byteLimit / 4 else { return entry }
        var entry = entry
        // A body that arrived in a network buffer much larger than itself (a short master playlist
        // in a 64 KB chunk) is kept as a copy of its bytes: the limit counts bytes, not buffers.
        if entry.upstream.capacity > 2 * entry.upstream.readableBytes + 4096 {
            entry.upstream = ByteBuffer(bytes: entry.upstream.readableBytesView)
        }
        let evicted = state.withLockedValue { state -> Int in
            state.generation += 1
            if let replaced = state.entries[key] { state.bytes -= replaced.entry.byteCount }
            state.entries[key] = (entry, state.generation)
            state.latest[key.upstreamURL] = key
            state.order.append((key, state.generation))
            state.bytes += entry.byteCount
            var evicted = 0
            while state.bytes > byteLimit, state.head < state.order.count {
                let (oldKey, generation) = state.order[state.head]
                state.head += 1
                if let stored = state.entries[oldKey], stored.generation == generation {
                    state.entries[oldKey] = nil
                    if state.latest[oldKey.upstreamURL] == oldKey { state.latest[oldKey.upstreamURL] = nil }
                    state.bytes -= stored.entry.byteCount
                    evicted += 1
                }
            }
            // Replacements (a live playlist stored on every reload) leave stale pairs: rebuild the
            // order from the live entries when those outnumber them.
            if state.order.count - state.head > 2 * state.entries.count + 64 {
                state.order = state.entries.map { ($0.key, $0.value.generation) }.sorted { $0.generation < $1.generation }
                state.head = 0
            }
            return evicted
        }
        if evicted > 0 {
            notice?.hit { _ in "rewrite cache full (\(byteLimit) bytes): oldest rewritten playlists dropped" }
        }
        return entry
    }
}
