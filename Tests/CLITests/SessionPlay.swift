import Foundation
import Testing
import TestSupport

/// What a client got when it played one session the way a player starts: the master playlist,
/// the first variant's media playlist, then every segment of it, one request at a time.
struct SessionPlay: Sendable {
    /// What one request ended with, as the client saw it.
    enum Outcome: Equatable, Sendable, CustomStringConvertible {
        case status(Int)
        /// The connection ended before a response head (a reset, or a close).
        case noResponse

        var description: String {
            switch self {
            case .status(let code): "\(code)"
            case .noResponse: "no response"
            }
        }
    }

    let session: String
    /// The outcome of every segment request, by media sequence number.
    var segments: [Int: Outcome] = [:]

    /// Master, media playlist and segments: how many requests `play` makes for this media.
    static func requestCount(segments: Int) -> Int { 2 + segments }

    /// Plays `/s/<session>/<entry>` on `port`.
    static func play(session: String, entry: String, port: Int) async throws -> SessionPlay {
        var play = SessionPlay(session: session)
        let variant = try #require(try await playlistURIs(port: port, "/s/\(session)/\(entry)").first, "no variant in the master")
        let segments = try await playlistURIs(port: port, variant)
        try #require(!segments.isEmpty, "no segment in \(variant)")
        for uri in segments {
            let msn = try #require(Self.msn(of: uri), "not a segment URI written by hlschaos: \(uri)")
            play.segments[msn] = try await outcome(port: port, uri)
        }
        return play
    }

    /// The URI lines of a playlist the proxy serves (already rewritten to `/s/<session>/~…`).
    private static func playlistURIs(port: Int, _ target: String) async throws -> [String] {
        let response = try await RawHTTP.get(port: port, target)
        try #require(response.status == 200, "\(target): \(response.status) \(response.text.prefix(200))")
        return response.text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") && !$0.isEmpty }
    }

    private static func outcome(port: Int, _ target: String) async throws -> Outcome {
        do {
            return .status(try await RawHTTP.get(port: port, target).status)
        } catch let failure as RawHTTPConnection.Failure where failure == .resetBeforeHead || failure == .closedBeforeHead {
            return .noResponse
        }
    }

    /// The media sequence number in a segment's tag (`/s/tv1/~seg.v0.n7/http/…` → 7).
    static func msn(of uri: String) -> Int? {
        guard let tag = uri.split(separator: "/").first(where: { $0.hasPrefix("~seg.") }) else { return nil }
        guard let number = tag.split(separator: ".").first(where: { $0.hasPrefix("n") }) else { return nil }
        return Int(number.dropFirst())
    }
}
