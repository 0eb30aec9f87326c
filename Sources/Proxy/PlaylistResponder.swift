import Chaos
import Foundation
import HLS

/// Turns an upstream playlist into the one the client gets: the version to serve (`freeze`, `lag`),
/// what the session learns from it, URIs pointed back at the proxy, playlist surgery, text damage.
struct PlaylistResponder {
    var request: ProxyPath
    var clientPath: String
    var allowlist: HostAllowlist
    var session: Session
    var recordsHistory: Bool
    var now: Duration

    struct Result {
        var body: [UInt8]
        var tag: ResourceTag
        var isPlaylist: Bool
    }

    /// Parses just enough to tell what an untagged entry playlist is (multivariant or media).
    static func entryTag(for bytes: [UInt8], url: String) -> ResourceTag? {
        guard let playlist = try? Playlist(bytes: bytes, url: URL(string: url)) else { return nil }
        return ResourceTag(kind: playlist.kind == .multivariant ? .master : .media)
    }

    func respond(upstream bytes: [UInt8], effectiveURL: String, tag: ResourceTag, steps: [ContentStep]) -> Result {
        var history: PlaylistHistory?
        if recordsHistory {
            history = session.memory.withLockedValue { memory in
                memory.rules.recordPlaylist(bytes, url: effectiveURL, at: now)
                return memory.rules.histories[effectiveURL]
            }
        }
        let served = PlaylistSurgery.body(serving: bytes, steps: steps, history: history, now: now)
        guard var playlist = try? Playlist(bytes: served, url: URL(string: effectiveURL)) else {
            // Not a playlist after all: the client gets exactly what the origin sent.
            return Result(body: served, tag: tag, isPlaylist: false)
        }
        session.memory.withLockedValue { memory in
            if playlist.kind == .multivariant {
                memory.catalog.learn(multivariant: playlist)
            } else {
                memory.catalog.learn(media: playlist, tag: tag)
            }
        }
        PlaylistRewriter(request: request, clientPath: clientPath, playlistTag: tag, allowlist: allowlist)
            .rewrite(&playlist)
        if !steps.isEmpty {
            PlaylistSurgery.apply(steps, to: &playlist, backupURI: Self.backupURI)
        }
        let body = PlaylistSurgery.damage(playlist.serialized(), steps: steps, kind: playlist.kind)
        return Result(body: body, tag: tag, isPlaylist: true)
    }

    /// The backup copy of a variant: the same rewritten URI with the tag marked `.b`.
    static func backupURI(_ primary: Variant) -> String {
        guard var path = try? ProxyPath(parsing: primary.uri), case .rewritten(var tag, let upstream) = path.route else {
            return primary.uri
        }
        tag.backup = true
        path.route = .rewritten(tag: tag, upstream: upstream)
        return path.rewrittenPath(tag: tag, upstream: upstream)
    }
}
