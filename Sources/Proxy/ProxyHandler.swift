import Foundation
import HLS
import Logging
import NIOCore
import NIOHTTP1
import Upstream

/// Answers one client request: classify it, fetch upstream through libcurl, rewrite playlists,
/// stream everything else.
struct ProxyHandler: Sendable {
    let configuration: ProxyConfiguration
    let upstream: UpstreamClient
    let sessions: SessionStore
    let allowlist: HostAllowlist
    let logger: Logger

    enum Disposition: Sendable { case keepAlive, close }

    func handle(_ client: ClientChannel) async -> Disposition {
        do {
            return try await respond(client)
        } catch {
            // The client went away or its socket broke mid-response: nothing more can be sent.
            logger.debug("response aborted", metadata: ["uri": "\(client.requestHead.uri)", "error": "\(error)"])
            return .close
        }
    }

    private func respond(_ client: ClientChannel) async throws -> Disposition {
        let head = client.requestHead
        if head.method == .OPTIONS && configuration.cors {
            try await client.sendPreflight()
            return .keepAlive
        }
        guard head.method == .GET || head.method == .HEAD else {
            try await client.sendText(
                .methodNotAllowed, "hlschaos proxies GET and HEAD only, not \(head.method.rawValue)",
                headers: ["allow": "GET, HEAD"])
            return .keepAlive
        }
        let path: ProxyPath
        do {
            path = try ProxyPath(parsing: head.uri)
        } catch {
            try await client.sendText(.badRequest, error.description)
            return .keepAlive
        }
        let location: UpstreamLocation
        switch resolve(path) {
        case .success(let resolved):
            location = resolved
        case .failure(let refusal):
            try await client.sendText(refusal.status, refusal.message)
            return .keepAlive
        }
        _ = sessions.session(for: path.session)

        let expectsPlaylist = path.tag.map { $0.kind == .media || $0.kind == .master }
            ?? ["m3u8", "m3u"].contains(location.pathExtension ?? "")
        let request = UpstreamRequest(
            url: location.url,
            method: head.method == .HEAD && !expectsPlaylist ? .head : .get,
            headers: HeaderPolicy.upstreamRequestHeaders(from: head.headers, isPlaylist: expectsPlaylist),
            followRedirects: true,
            decodeContent: expectsPlaylist,
            totalTimeout: expectsPlaylist ? .milliseconds(Int64(configuration.playlistTimeout * 1000)) : nil)

        let response: UpstreamResponse
        do {
            response = try await upstream.fetch(request)
        } catch {
            try await sendUpstreamFailure(error, client: client)
            return .keepAlive
        }

        let isPlaylist = expectsPlaylist || Self.isPlaylistContentType(response.header("content-type"))
        if isPlaylist && (200..<300).contains(response.status) {
            return try await servePlaylist(response, path: path, client: client)
        }
        return try await stream(response, client: client)
    }

    // MARK: - Resolution

    struct Refusal: Error {
        var status: HTTPResponseStatus
        var message: String
    }

    private func resolve(_ path: ProxyPath) -> Result<UpstreamLocation, Refusal> {
        switch path.route {
        case .origin(let name, let pathAndQuery):
            if let location = configuration.resolve(origin: name, pathAndQuery: pathAndQuery) {
                return .success(location)
            }
            if let name {
                let known = configuration.origins.keys.sorted().joined(separator: ", ")
                return .failure(Refusal(
                    status: .notFound,
                    message: "no origin named \"\(name)\" in the configuration (configured: \(known.isEmpty ? "none" : known))"))
            }
            return .failure(Refusal(
                status: .notFound,
                message: "no default origin: start hlschaos with --upstream URL, or ask for /@<origin>/… with an origin from the configuration"))
        case .rewritten(_, let location):
            guard allowlist.allows(location) else {
                return .failure(Refusal(
                    status: .forbidden,
                    message: "\(location.authority) is not a configured origin and no playlist fetched through hlschaos pointed to it; hlschaos is not an open relay (add it to \"origins\" in the configuration)"))
            }
            return .success(location)
        }
    }

    // MARK: - Responses

    private func sendUpstreamFailure(_ error: UpstreamError, client: ClientChannel) async throws {
        if case .cancelled = error { throw error }
        let status: HTTPResponseStatus = error.isTimeout ? .gatewayTimeout : .badGateway
        logger.info("upstream failed", metadata: ["uri": "\(client.requestHead.uri)", "error": "\(error)"])
        try await client.sendText(status, "hlschaos: upstream \(error.isTimeout ? "timed out" : "failed"): \(error)")
    }

    /// Passes a response through as it arrives; the transfer pauses while the client is slow.
    private func stream(_ response: UpstreamResponse, client: ClientChannel) async throws -> Disposition {
        let headers = HeaderPolicy.clientResponseHeaders(from: response.headers, isPlaylist: false)
        try await client.sendHead(HTTPResponseStatus(statusCode: response.status), headers: headers)
        if client.isHEAD {
            response.body.cancel()
            try await client.sendEnd()
            return .keepAlive
        }
        do {
            for try await chunk in response.body {
                try await client.sendBody(chunk)
            }
        } catch let error as UpstreamError {
            // Headers are out; the only honest signal left is a connection that ends early.
            logger.info("upstream body failed", metadata: ["uri": "\(client.requestHead.uri)", "error": "\(error)"])
            await client.close()
            return .close
        } catch {
            response.body.cancel()
            throw error
        }
        try await client.sendEnd()
        return .keepAlive
    }

    private func servePlaylist(_ response: UpstreamResponse, path: ProxyPath, client: ClientChannel) async throws -> Disposition {
        let original: [UInt8]
        do {
            original = try await response.body.collect(upTo: configuration.maxPlaylistBytes)
        } catch {
            try await sendUpstreamFailure(error, client: client)
            return .keepAlive
        }
        var body = original
        do {
            var playlist = try Playlist(bytes: original, url: URL(string: response.effectiveURL))
            let tag = path.tag ?? ResourceTag(kind: playlist.kind == .multivariant ? .master : .media)
            let clientPath = String(client.requestHead.uri.prefix { $0 != "?" })
            PlaylistRewriter(request: path, clientPath: clientPath, playlistTag: tag, allowlist: allowlist)
                .rewrite(&playlist)
            body = playlist.serialized()
        } catch {
            // Not a playlist after all: the player gets exactly what the origin sent.
            logger.info("not rewritten", metadata: ["url": "\(response.effectiveURL)", "error": "\(error)"])
        }
        var headers = HeaderPolicy.clientResponseHeaders(from: response.headers, isPlaylist: true)
        headers.replaceOrAdd(name: "content-length", value: String(body.count))
        try await client.sendHead(HTTPResponseStatus(statusCode: response.status), headers: headers)
        try await client.sendBody(body)
        try await client.sendEnd()
        return .keepAlive
    }

    static func isPlaylistContentType(_ value: String?) -> Bool {
        guard let value = value?.lowercased() else { return false }
        return value.contains("mpegurl")
    }
}
