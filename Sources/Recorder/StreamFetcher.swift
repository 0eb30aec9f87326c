import Addressing
import BundleFormat
import Foundation
import HLS
import NIOCore
import Upstream

/// One resource fetched through `UpstreamClient` and written to the bundle as received: every
/// response (redirects included, each hop its own exchange), its body streamed into a
/// `BodyCapture`, libcurl's timings, and the failure when there was one. The bodies of playlists
/// and steering manifests are also kept in memory to be read (up to `maxPlaylistBytes`); other
/// bodies never are.
struct StreamFetcher: Sendable {
    let client: UpstreamClient
    let writer: BundleWriter
    let tally: RecordTally
    /// Time allowed for the response head; playlists must also be complete within it.
    let timeout: Duration
    /// Time allowed for a whole segment, key or init section.
    let mediaTimeout: Duration
    var maxPlaylistBytes = 16 * 1024 * 1024
    static let maxRedirects = 10

    struct Request: Sendable {
        var url: String
        /// `bytes=first-last`, for byte-range segments.
        var range: String?
        var kind: String
        var isPlaylist: Bool { ResourceKind(rawValue: kind)?.isPlaylist ?? false }
        /// Playlists and steering manifests are read by the recorder: their bodies are kept, and
        /// they must arrive whole within `timeout`.
        var isRead: Bool { isPlaylist || kind == ResourceKind.steering.rawValue }
    }

    enum Result: Sendable {
        /// The last exchange written, with the playlist parsed when the request was for one and its
        /// body was one. `body` is the bytes received for a playlist or steering manifest (nil for
        /// other kinds).
        case done(Exchange, playlist: Playlist?, body: [UInt8]?, finalURL: String)
        /// Stopped before its end because the recording is stopping: nothing was written.
        case cancelled
        /// The bundle refused the exchange (size cap, disk): the recording must stop.
        case bundleFailed(BundleError)
    }

    /// Fetches `request`, following redirects by hand so that each hop is recorded.
    func fetch(_ request: Request) async -> Result {
        var url = request.url
        for _ in 0...Self.maxRedirects {
            let result = await fetchOnce(request, url: url)
            guard case .done(let exchange, _, _, _) = result,
                  let status = exchange.status, [301, 302, 303, 307, 308].contains(status),
                  let location = exchange.header("Location"),
                  let next = URL(string: location, relativeTo: URL(string: url))?.absoluteURL.absoluteString
            else { return result }
            url = next
        }
        return await fetchOnce(request, url: url)
    }

    private func fetchOnce(_ request: Request, url: String) async -> Result {
        if Task.isCancelled { return .cancelled }
        var headers: [(name: String, value: String)] = []
        if let range = request.range { headers.append(("Range", range)) }
        let upstreamRequest = UpstreamRequest(
            url: url, headers: headers, followRedirects: false, decodeContent: request.isRead,
            totalTimeout: request.isRead ? timeout : max(mediaTimeout, timeout))
        let sent = Date()
        let clock = ContinuousClock.now
        tally.started()
        defer { tally.ended() }
        func elapsed() -> Double { (ContinuousClock.now - clock) / .seconds(1) }

        let response: UpstreamResponse
        do {
            response = try await client.fetch(upstreamRequest)
        } catch {
            if error == .cancelled || Task.isCancelled { return .cancelled }
            let exchange = Exchange(
                at: writer.offset(of: sent), url: url, range: request.range, status: nil,
                ending: Self.ending(of: error, contentLength: nil, received: 0), error: error.description,
                timings: .init(total: elapsed()), kind: request.kind)
            return write(exchange, playlist: nil, body: nil, finalURL: url)
        }

        let capture = writer.beginBody()
        let keep = request.isRead
        var kept: [UInt8] = []
        var keptAll = true
        var received = 0
        var failure: UpstreamError?
        do {
            for try await chunk in response.body {
                received += chunk.readableBytes
                tally.received(chunk.readableBytes)
                chunk.withUnsafeReadableBytes { bytes in
                    capture.append(bytes)
                    if keep && keptAll {
                        if kept.count + bytes.count > maxPlaylistBytes { keptAll = false; kept = [] } else { kept.append(contentsOf: bytes) }
                    }
                }
            }
        } catch {
            failure = error
        }
        if failure == .cancelled || Task.isCancelled {
            capture.discard()
            return .cancelled
        }
        let total = response.body.totalSeconds ?? elapsed()
        let reference: Exchange.BodyReference?
        do {
            reference = try capture.finish()
        } catch {
            return .bundleFailed(error)
        }
        var exchange = Exchange(
            at: writer.offset(of: sent), url: url, range: request.range, status: response.status,
            headers: response.headers.map { Exchange.Header($0.name, $0.value) }, body: reference,
            timings: .init(connect: response.timings.connect, firstByte: response.timings.firstByte, total: total),
            kind: request.kind)
        if let failure {
            let length = response.header("Content-Length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            exchange.ending = Self.ending(of: failure, contentLength: length, received: received)
            exchange.error = failure.description
        }
        var playlist: Playlist?
        var body: [UInt8]?
        // A playlist over `maxPlaylistBytes` is kept in the bundle as received but not parsed.
        if keep, keptAll {
            body = kept
            if request.isPlaylist, failure == nil, (200..<300).contains(response.status), ResourceGuess.isPlaylist(body: kept) {
                playlist = try? Playlist(bytes: kept, url: URL(string: url))
                if request.kind == "master", playlist?.kind == .media { exchange.kind = "media" }
            }
        }
        return write(exchange, playlist: playlist, body: body, finalURL: url)
    }

    private func write(_ exchange: Exchange, playlist: Playlist?, body: [UInt8]?, finalURL: String) -> Result {
        do {
            try writer.append(exchange)
        } catch {
            return .bundleFailed(error)
        }
        tally.recorded(exchange)
        return .done(exchange, playlist: playlist, body: body, finalURL: finalURL)
    }

    /// How a failed fetch ended, in the bundle's words.
    static func ending(of error: UpstreamError, contentLength: Int?, received: Int) -> Exchange.Ending {
        switch error {
        case .timeout:
            return .timeout
        case .transfer(_, let message), .connect(_, let message):
            let lowered = message.lowercased()
            if lowered.contains("reset") { return .reset }
            if let contentLength, received < contentLength { return .truncated }
            if lowered.contains("closed with") && lowered.contains("remaining") { return .truncated }
            return .failed
        default:
            if let contentLength, received < contentLength { return .truncated }
            return .failed
        }
    }
}
