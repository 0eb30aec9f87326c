import NIOConcurrencyHelpers
import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// Rewritten playlists, so that a VOD playlist many devices (or one player, again and again) fetch
/// is parsed and rewritten once. An entry is used only when the upstream bytes are the same and no
/// rule changed the playlist; rewriting depends on nothing else than the key.
final class RewriteCache: Sendable {
    struct Key: Hashable {
        var upstreamURL: String
        var tag: ResourceTag
        var sessionPrefix: String
        var clientPath: String
    }

    struct Entry: Sendable {
        var upstream: [UInt8]
        var output: ByteBuffer
        var summary: SessionCatalog.Summary
    }

    static let capacity = 512
    private let entries = NIOLockedValueBox([Key: Entry]())

    func lookup(_ key: Key, upstream: [UInt8]) -> Entry? {
        guard let entry = entries.withLockedValue({ $0[key] }), Self.same(entry.upstream, upstream) else { return nil }
        return entry
    }

    /// Byte equality with memcmp (Array's == compares element by element).
    private static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { x in b.withUnsafeBytes { y in x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 } }
    }

    func store(_ key: Key, _ entry: Entry) {
        entries.withLockedValue { entries in
            if entries.count >= Self.capacity, entries[key] == nil { entries.removeAll(keepingCapacity: true) }
            entries[key] = entry
        }
    }
}
