import Addressing
import Chaos
import Foundation
import HLS
import Logging
import NIOCore
import NIOHTTP1
import Records
import RuleLoading
import Upstream

/// Answers one client request: classify it, ask the rules for a fault plan, fetch upstream through
/// libcurl unless the plan answers by itself, rewrite playlists, and send the response the way the
/// plan says.
struct ProxyHandler: Sendable {
    let configuration: ProxyConfiguration
    let upstream: UpstreamClient
    let sessions: SessionStore
    let allowlist: HostAllowlist
    let rules: RuleBook
    let clock: any ChaosClock
    let records: RecordLog
    let control: ControlLayers
    let rewrites: RewriteCache
    let historyNotice: LimitNotice
    let recorder: ProxyRecorder
    /// Forward mode (`--forward`): who may use it and how CONNECTs are intercepted; nil when off.
    let forwarding: Forwarding?
    /// The device setup page (`/hlschaos/setup`) and the root certificate it hands out.
    let setupPage: SetupPage
    /// This process's listening ports (own-listener checks, the setup page asked through a proxy setting).
    let ownPorts: ListeningPorts
    let logger: Logger

    init(
        configuration: ProxyConfiguration, upstream: UpstreamClient, sessions: SessionStore, allowlist: HostAllowlist,
        rules: RuleBook, clock: any ChaosClock, records: RecordLog, control: ControlLayers, recorder: ProxyRecorder,
        forwarding: Forwarding?, setupPage: SetupPage, ownPorts: ListeningPorts, logger: Logger
    ) {
        self.forwarding = forwarding
        self.setupPage = setupPage
        self.ownPorts = ownPorts
        self.control = control
        self.recorder = recorder
        self.configuration = configuration
        self.upstream = upstream
        self.sessions = sessions
        self.allowlist = allowlist
        self.rules = rules
        self.clock = clock
        self.records = records
        self.logger = logger
        self.rewrites = RewriteCache(
            byteLimit: configuration.memory.rewriteCacheBytes,
            notice: LimitNotice(configKey: "rewriteCacheBytes", logger: logger))
        self.historyNotice = LimitNotice(configKey: "playlistHistoryBytes", logger: logger)
    }

    enum Disposition: Sendable {
        case keepAlive, close
        /// A `CONNECT` was allowed: the connection becomes a tunnel or an intercepted TLS connection.
        case switchConnection(ConnectionSetup.Switch)

        var isKeepAlive: Bool { if case .keepAlive = self { true } else { false } }
    }

    func handle(_ client: ClientChannel) async -> Disposition {
        let draft = RecordDraft()
        let disposition: Disposition
        var ending = RequestRecord.Ending.complete
        do {
            disposition = try await respond(client, draft)
        } catch let error as ClientChannel.SecondResponse {
            logger.error("bug: \(error)")
            await client.close()
            disposition = .close
            ending = .closed
        } catch {
            // The client went away, its socket broke, or a fault closed the connection on purpose.
            logger.debug("response ended early", metadata: ["uri": "\(client.requestHead.uri)", "error": "\(error)"])
            disposition = .close
            ending = client.channel.isActive ? .closed : .clientAbort
        }
        #if !HLSCHAOS_WITHOUT_RECORDS  // defined only by Benchmarks/proxy/records-cost.sh, to measure what this costs
        var record = draft.record(client: client, ending: ending)
        records.emit(&record)
        for capture in draft.captures { capture.finish(record, recorder: recorder) }
        #endif
        await client.waitUntilWritten()
        if case .switchConnection = disposition { return disposition }
        return client.closesAfterResponse ? .close : disposition
    }

    private func respond(_ client: ClientChannel, _ draft: RecordDraft) async throws -> Disposition {
        let head = client.requestHead
        // NIO's decoder reads nothing after an upgrade request or a CONNECT (it expects another
        // protocol): the connection ends with this response, unless a CONNECT switches it.
        if head.method == .CONNECT || head.headers.contains(name: "upgrade") { client.closeAfterResponse() }
        if head.method == .CONNECT, let forwarding, case .direct = client.way {
            return try await connect(client, draft, forwarding)
        }
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
        if let problem = Self.rangeProblem(head.headers) {
            try await client.sendText(.badRequest, "hlschaos: \(problem)")
            return .keepAlive
        }
        let target: String, hop: Int, path: ProxyPath
        do {
            (target, hop) = try RedirectHop.split(head.uri)
        } catch {
            try await client.sendText(.badRequest, "hlschaos: \(error)")
            return .keepAlive
        }
        if case .direct = client.way, let setupPath = setupPagePath(target),
           try await setupPage.answer(path: setupPath, proxyHost: Self.hostOnly(head.headers.first(name: "host")), proxyPort: configuration.port, client: client) {
            return .keepAlive
        }
        switch try await address(client, target: target, draft: draft) {
        case .some(let addressed): path = addressed
        case .none: return .keepAlive
        }
        draft.session = path.session ?? SessionStore.defaultID
        draft.tag = path.tag
        let location: UpstreamLocation
        switch resolve(path) {
        case .success(let resolved): location = resolved
        case .failure(let refusal):
            try await client.sendText(refusal.status, refusal.message)
            return .keepAlive
        }
        draft.captures = recorder.captures(session: draft.session, url: location.url, arrived: draft.time)
        if !draft.captures.isEmpty { client.record(into: draft.captures) }
        var engine: RuleEngine
        do {
            engine = try rules.engine(presets: path.presets)
        } catch {
            let status: HTTPResponseStatus = if case .tooMany = error { .badRequest } else { .notFound }
            try await client.sendText(status, error.description)
            return .keepAlive
        }
        let session = sessions.session(for: path.session)
        let layers = [control.layer, session.memory.withLockedValue { $0.layer }].compactMap { $0 }
        if !layers.isEmpty { engine = engine.inserting(layers, beforeLayer: 1) }
        var exchange = Exchange(
            client: client, draft: draft, path: path, target: target, hop: hop, location: location, session: session,
            engine: engine, tag: path.tag)

        // An entry URL (no tag): a media file by its extension; a playlist is fetched first, since
        // only its content says master or media.
        let pathExtension = exchange.tag == nil ? location.pathExtension ?? "" : ""
        if exchange.tag == nil, ResourceGuess.mediaExtensions.contains(pathExtension) {
            exchange.tag = ResourceTag(kind: .segment)
        }
        if exchange.tag == nil, ResourceGuess.playlistExtensions.contains(pathExtension) {
            guard let fetched = try await fetchOrFail(exchange, expectsPlaylist: true) else { return .keepAlive }
            exchange.prefetched = fetched
            if (200..<300).contains(fetched.status) {
                // A failed body has been answered (502/504): that is the one response to this request.
                guard let body = try await collectOrFail(fetched, client: client, draft: draft) else { return .keepAlive }
                exchange.prefetchedBody = body
                exchange.tag = body.withUnsafeReadableBytes { ResourceTag(entryPlaylist: $0) }
            }
        }
        return try await serve(&exchange)
    }

    /// Everything the steps of one request share.
    struct Exchange {
        var client: ClientChannel
        var draft: RecordDraft
        var path: ProxyPath
        var target: String
        var hop: Int
        var location: UpstreamLocation
        var session: Session
        var engine: RuleEngine
        var tag: ResourceTag?
        var prefetched: UpstreamResponse?
        var prefetchedBody: ByteBuffer?
        var plan = FaultPlan()

        var expectsPlaylist: Bool { tag.map { $0.kind == .media || $0.kind == .master } ?? false }
    }

    private func serve(_ exchange: inout Exchange) async throws -> Disposition {
        let client = exchange.client
        let now = clock.now()
        exchange.draft.tag = exchange.tag
        if let tag = exchange.tag {
            let facts = exchange.session.memory.withLockedValue {
                RequestFacts(tag: tag, session: exchange.session, catalog: $0.catalog, head: client.requestHead, upstream: exchange.location)
            }
            exchange.plan = exchange.session.memory.withLockedValue { exchange.engine.plan(for: facts, state: &$0.rules, now: now) }
            exchange.draft.plan = exchange.plan
        }
        let plan = exchange.plan
        if plan.content.contains(where: { $0.action == .ignoreDirectives }) {
            exchange.location = exchange.location.with(
                pathAndQuery: DeliveryDirectives.removed(from: exchange.location.pathAndQuery))
        }
        if let delay = plan.delay { try await Task.sleep(for: delay) }
        if let answered = try await answerWithoutUpstream(exchange) {
            exchange.prefetched?.body.cancel()
            return answered
        }

        let response: UpstreamResponse
        if let prefetched = exchange.prefetched {
            response = prefetched
        } else {
            guard let fetched = try await fetchOrFail(exchange, expectsPlaylist: exchange.expectsPlaylist) else { return .keepAlive }
            response = fetched
        }
        let succeeded = (200..<300).contains(response.status)
        let isPlaylist = exchange.expectsPlaylist || ResourceGuess.isPlaylistContentType(response.header("content-type"))
        if isPlaylist && succeeded {
            var collected = exchange.prefetchedBody
            if collected == nil { collected = try await collectOrFail(response, client: client, draft: exchange.draft) }
            guard let upstreamBody = collected else { return .keepAlive }
            let tag = exchange.tag ?? upstreamBody.withUnsafeReadableBytes { ResourceTag(entryPlaylist: $0) } ?? ResourceTag(kind: .media)
            exchange.draft.tag = tag
            let clientPath = String(Substring(exchange.target.utf8.prefix { $0 != UInt8(ascii: "?") }))
            let result = PlaylistResponder(
                request: exchange.path, clientPath: clientPath,
                allowlist: allowlist, session: exchange.session,
                recordsHistory: exchange.engine.needsPlaylistHistory, historyHorizon: exchange.engine.historyHorizon,
                now: now, cache: rewrites,
                historyNotice: historyNotice
            ).respond(upstream: upstreamBody, effectiveURL: response.effectiveURL, tag: tag, steps: plan.content)
            if result.isPlaylist, !exchange.draft.captures.isEmpty {
                let served = RequestCapture.originView(
                    of: Array(result.body.readableBytesView), clientPath: clientPath)
                for capture in exchange.draft.captures { capture.playlist = served }
            }
            return try await sendBuffered(result.body, response: response, plan: plan, rewritten: result.isPlaylist, exchange: exchange)
        }
        if let prefetched = exchange.prefetchedBody {
            // An entry .m3u8 that turned out not to be a playlist: its body has been read already.
            return try await sendBuffered(prefetched, response: response, plan: plan, rewritten: false, exchange: exchange)
        }
        if succeeded, exchange.tag?.kind == .steering {
            guard let collected = try await collectOrFail(response, client: client, draft: exchange.draft) else { return .keepAlive }
            let original = Array(collected.readableBytesView)
            let manifest = SteeringManifestRewriter(request: exchange.path, allowlist: allowlist)
                .rewrite(original, upstreamURL: response.effectiveURL, steps: plan.content)
            return try await sendBuffered(ByteBuffer(bytes: manifest), response: response, plan: plan, rewritten: manifest != original, exchange: exchange)
        }
        if succeeded, !plan.content.isEmpty, let kind = exchange.tag?.resourceKind, kind == .key || kind == .sessionData {
            guard let collected = try await collectOrFail(response, client: client, draft: exchange.draft) else { return .keepAlive }
            let damaged = ContentDamage.apply(plan.content, to: Array(collected.readableBytesView), kind: kind)
            return try await sendBuffered(ByteBuffer(bytes: damaged), response: response, plan: plan, rewritten: true, exchange: exchange)
        }
        return try await stream(response, plan: plan, exchange: exchange)
    }

    // MARK: - Faults answered by the proxy itself

    private func answerWithoutUpstream(_ exchange: Exchange) async throws -> Disposition? {
        let client = exchange.client
        let plan = exchange.plan
        switch plan.response {
        case .status(let code, let extra, let body):
            var headers = HTTPHeaders(extra.map { ($0.name, $0.value) })
            headers.replaceOrAdd(name: "x-hlschaos-fault", value: Self.faultHeader(plan))
            if let body {
                try await client.sendBody(Array(body.utf8), status: HTTPResponseStatus(statusCode: code), headers: headers)
            } else {
                try await client.sendText(
                    HTTPResponseStatus(statusCode: code), "hlschaos: \(code) injected by rule \(plan.responseRule?.description ?? "?")",
                    headers: headers)
            }
            return .keepAlive
        case .hang(let duration):
            exchange.draft.ending = .hang
            if let duration {
                try await Task.sleep(for: duration)
                await client.close()
                return .close
            }
            // Until the client gives up (the request task is cancelled when it disconnects).
            while true { try await Task.sleep(for: .seconds(3600)) }
        case .reset(.beforeHeaders):
            exchange.draft.ending = .reset
            await client.reset()
            return .close
        case .redirect(let status, let hops, let loop) where loop || exchange.hop < hops:
            let location = RedirectHop.target(exchange.target, hop: loop ? (exchange.hop + 1) % 2 : exchange.hop + 1)
            try await client.sendText(
                HTTPResponseStatus(statusCode: status), "hlschaos: redirect \(exchange.hop + 1) injected by rule \(plan.responseRule?.description ?? "?")",
                headers: ["location": location, "x-hlschaos-fault": Self.faultHeader(plan)])
            return .keepAlive
        case .rejectRanges:
            try await client.sendText(
                .notImplemented, "hlschaos: byte-range requests refused (501) by rule \(plan.responseRule?.description ?? "?")",
                headers: ["x-hlschaos-fault": Self.faultHeader(plan)])
            return .keepAlive
        default:
            return nil
        }
    }

    // MARK: - Upstream

    private func fetchOrFail(_ exchange: Exchange, expectsPlaylist: Bool) async throws -> UpstreamResponse? {
        let head = exchange.client.requestHead
        // A blocking reload may be held by the origin for up to three target durations: the
        // timeouts start counting after that.
        let hold = expectsPlaylist && BlockingReload.asksToBlock(exchange.location.pathAndQuery)
            ? BlockingReload.hold(targetDuration: exchange.session.memory.withLockedValue { $0.catalog.targetDuration }) : nil
        let url = exchange.location.url
        let request = UpstreamRequest(
            url: url,
            method: head.method == .HEAD && !expectsPlaylist ? .head : .get,
            headers: HeaderPolicy.upstreamRequestHeaders(from: head.headers, isPlaylist: expectsPlaylist),
            followRedirects: true,
            decodeContent: expectsPlaylist,
            totalTimeout: expectsPlaylist ? .milliseconds(Int64(configuration.playlistTimeout * 1000)) + (hold ?? .zero) : nil,
            firstByteTimeout: hold.map { $0 + configuration.upstream.firstByteTimeout },
            // A device may name any URL in forward mode: libcurl refuses this machine's listeners and
            // link-local addresses at connect time, after DNS and after every redirect.
            guardAddresses: exchange.path.isForward && !configuration.forward.allowPrivateTargets,
            // A playlist that has not changed since it was last rewritten is compared where it
            // arrives, not copied (the rewrite cache then finds the very buffer it holds).
            expectedBody: expectsPlaylist ? rewrites.expectedUpstream(for: url) : nil)
        exchange.draft.upstream = RequestRecord.Upstream(url: url)
        do {
            let response = try await upstream.fetch(request)
            exchange.draft.upstream?.status = response.status
            exchange.draft.upstream?.connect = response.timings.connect
            exchange.draft.upstream?.firstByte = response.timings.firstByte
            exchange.draft.upstreamBody = response.body
            if response.effectiveURL != url { exchange.draft.upstream?.url = response.effectiveURL }
            return response
        } catch {
            exchange.draft.upstream?.error = error.description
            try await sendUpstreamFailure(error, client: exchange.client)
            return nil
        }
    }

    private func collectOrFail(_ response: UpstreamResponse, client: ClientChannel, draft: RecordDraft) async throws -> ByteBuffer? {
        do {
            return try await response.body.collectBuffer(upTo: configuration.maxPlaylistBytes)
        } catch {
            draft.upstream?.error = error.description
            try await sendUpstreamFailure(error, client: client)
            return nil
        }
    }

    private func sendUpstreamFailure(_ error: UpstreamError, client: ClientChannel) async throws {
        if case .cancelled = error { throw CancellationError() }
        if case .refusedAddress = error {
            try await client.sendText(.forbidden, "hlschaos: \(error)")
            return
        }
        let status: HTTPResponseStatus = error.isTimeout ? .gatewayTimeout : .badGateway
        logger.info("upstream failed", metadata: ["uri": "\(client.requestHead.uri)", "error": "\(error)"])
        try await client.sendText(status, "hlschaos: upstream \(error.isTimeout ? "timed out" : "failed"): \(error)")
    }

    // MARK: - Responses

    private func responseHeaders(_ response: UpstreamResponse, plan: FaultPlan, rewritten: Bool) -> HTTPHeaders {
        var (headers, invalid) = HeaderPolicy.clientResponseHeaders(from: response.headers, isPlaylist: rewritten)
        if !invalid.isEmpty {
            logger.warning("dropped response headers that are not valid HTTP", metadata: [
                "url": "\(response.effectiveURL)", "headers": "\(invalid.map { $0.debugDescription }.joined(separator: ", "))"])
        }
        if case .contentType(let type) = plan.response { headers.replaceOrAdd(name: "content-type", value: type) }
        if !plan.matchedRules.isEmpty { headers.replaceOrAdd(name: "x-hlschaos-fault", value: Self.faultHeader(plan)) }
        return headers
    }

    /// A body the proxy holds whole (a rewritten playlist, a damaged key).
    private func sendBuffered(_ body: ByteBuffer, response: UpstreamResponse, plan: FaultPlan, rewritten: Bool, exchange: Exchange) async throws -> Disposition {
        let client = exchange.client
        var headers = responseHeaders(response, plan: plan, rewritten: rewritten)
        // A 204 or 304 has no body (RFC 9110 §15.3.5, §15.4.5): what a rule's damage made of its
        // empty one is not sent, or the client would read it as the start of the next response.
        if response.status == 204 || response.status == 304 {
            try await client.sendHead(HTTPResponseStatus(statusCode: response.status), headers: headers)
            try await client.sendEnd()
            return .keepAlive
        }
        headers.replaceOrAdd(name: "content-length", value: String(body.readableBytes))
        try await client.sendHead(HTTPResponseStatus(statusCode: response.status), headers: headers)
        if client.isHEAD {
            try await client.sendEnd()
            return .keepAlive
        }
        var shaper = BodyShaper(plan.response, contentLength: body.readableBytes)
        if shaper.isPassthrough {
            try await client.sendBody(body, end: true)
            return .keepAlive
        }
        var outcome = try await shaper.send(Array(body.readableBytesView), to: client)
        if outcome == .more { outcome = try await shaper.finish(client: client) }
        if outcome == .cut {
            exchange.draft.ending = shaper.reset ? .reset : .truncated
            return .close
        }
        try await client.sendEnd()
        return .keepAlive
    }

    /// Passes a response through as it arrives; the transfer pauses while the client is slow.
    private func stream(_ response: UpstreamResponse, plan: FaultPlan, exchange: Exchange) async throws -> Disposition {
        let client = exchange.client
        let headers = responseHeaders(response, plan: plan, rewritten: false)
        // Without a length an HTTP/1.0 client can only find the end of the body by the close.
        if !headers.contains(name: "content-length"), client.requestHead.version.major == 1, client.requestHead.version.minor == 0 { client.closeAfterResponse() }
        try await client.sendHead(HTTPResponseStatus(statusCode: response.status), headers: headers)
        if client.isHEAD {
            response.body.cancel()
            try await client.sendEnd()
            return .keepAlive
        }
        let contentLength = headers.first(name: "content-length").flatMap(Int.init).flatMap { $0 >= 0 ? $0 : nil }
        var shaper = BodyShaper(plan.response, contentLength: contentLength)
        do {
            for try await chunk in response.body {
                if shaper.isPassthrough {
                    // The usual case: a last chunk leaves with the end of the response.
                    let last = response.body.isDrained
                    try await client.sendBody(chunk, end: last)
                    if last { return .keepAlive }
                } else if try await shaper.send(Array(chunk.readableBytesView), to: client) == .cut {
                    response.body.cancel()
                    exchange.draft.ending = shaper.reset ? .reset : .truncated
                    return .close
                }
            }
        } catch let error as UpstreamError {
            if case .cancelled = error { throw CancellationError() }
            // Headers are out; the only honest signal left is a connection that ends early.
            logger.info("upstream body failed", metadata: ["uri": "\(client.requestHead.uri)", "error": "\(error)"])
            exchange.draft.upstream?.error = error.description
            exchange.draft.ending = .truncated
            await client.close()
            return .close
        } catch {
            response.body.cancel()
            throw error
        }
        if try await shaper.finish(client: client) == .cut {
            exchange.draft.ending = shaper.reset ? .reset : .truncated
            return .close
        }
        try await client.sendEnd()
        return .keepAlive
    }

    /// The client's `Range` is forwarded to the origin and drives byte-range rules, so it is checked
    /// at the edge: a malformed or overflowing range is the client's mistake, answered with 400.
    static func rangeProblem(_ headers: HTTPHeaders) -> String? {
        let values = headers["range"]
        guard !values.isEmpty else { return nil }
        guard values.count == 1 else { return "a request may carry one Range header, this one has \(values.count)" }
        if case .invalid(let problem) = RangeHeader.parse(values[0]) { return problem }
        return nil
    }

    static func faultHeader(_ plan: FaultPlan) -> String {
        plan.matchedRules.map(\.description).joined(separator: ", ")
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
        case .forward(_, let location):
            return .success(location)  // forward clients were let in by ForwardAccess
        case .rewritten(_, let location):
            guard allowlist.allows(location) else {
                let full = allowlist.isFull
                    ? "; note that the list of hosts learned from playlists is full (\(allowlist.learnedLimit), config \"maxLearnedHosts\"), so hosts named by playlists since then are refused too"
                    : ""
                return .failure(Refusal(
                    status: .forbidden,
                    message: "\(location.authority) is not a configured origin and no playlist fetched through hlschaos pointed to it; hlschaos is not an open relay (add it to \"origins\" in the configuration)\(full)"))
            }
            return .success(location)
        }
    }
}
