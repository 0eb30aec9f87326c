import Addressing
import CMCD
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
final class ProxyHandler: Sendable {
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
        var disposition: Disposition
        do {
            disposition = try await respond(client)
        } catch let refusal as Refusal {
            disposition = await answer(refusal, client)
        } catch {
            disposition = await failed(error, client)
        }
        client.leaveLink()
        #if !HLSCHAOS_WITHOUT_RECORDS  // defined only by Benchmarks/proxy/records-cost.sh, to measure what this costs
        var record = client.request.finish(head: client.requestHead, client: client.clientAddress)
        records.emit(&record)
        for capture in client.request.captures { capture.finish(record, recorder: recorder) }
        #endif
        await client.waitUntilWritten()
        if case .switchConnection = disposition { return disposition }
        return client.closesAfterResponse ? .close : disposition
    }

    /// The one place the proxy answers a request by itself: refusals, failed origins, injected statuses.
    private func answer(_ refusal: Refusal, _ client: ClientChannel) async -> Disposition {
        var headers = refusal.headers
        if !headers.contains(name: "content-type") { headers.add(name: "content-type", value: "text/plain; charset=utf-8") }
        headers.replaceOrAdd(name: "cache-control", value: "no-store")
        do {
            try await client.sendBody(refusal.body, status: refusal.status, headers: headers)
            return .keepAlive
        } catch {
            return await failed(error, client)
        }
    }

    private func failed(_ error: any Error, _ client: ClientChannel) async -> Disposition {
        if let second = error as? RequestStateMachine.SecondResponse {
            logger.error("bug: \(second)", metadata: ["uri": "\(client.requestHead.uri.prefix(200))"])
            await client.close()
            client.request.end(.closed)
        } else {
            // The client went away, its socket broke, or a fault closed the connection on purpose.
            logger.debug("response ended early", metadata: ["uri": "\(client.requestHead.uri)", "error": "\(error)"])
            client.request.failed(connectionOpen: client.channel.isActive)
        }
        return .close
    }

    private func respond(_ client: ClientChannel) async throws -> Disposition {
        let head = client.requestHead
        // NIO's decoder reads nothing after an upgrade request or a CONNECT (it expects another
        // protocol): the connection ends with this response, unless a CONNECT switches it.
        if head.method == .CONNECT || head.headers.contains(name: "upgrade") { client.closeAfterResponse() }
        if head.method == .CONNECT, let forwarding, case .direct = client.way {
            return try await connect(client, forwarding)
        }
        if head.method == .OPTIONS && configuration.cors {
            try await client.sendPreflight()
            return .keepAlive
        }
        try Self.checkMethodAndRange(head)
        let target: String, hop: Int
        do { (target, hop) = try RedirectHop.split(head.uri) } catch { throw Refusal(.badRequest, "hlschaos: \(error)") }
        readCMCD(client, target: target)
        if case .direct = client.way, let setupPath = setupPagePath(target),
           try await setupPage.answer(path: setupPath, proxyHost: Self.hostOnly(head.headers.first(name: "host")), proxyPort: configuration.port, client: client) {
            return .keepAlive
        }
        var exchange = try await exchange(client, target: target, hop: hop)
        try await classifyEntry(&exchange)
        return try await serve(&exchange)
    }

    /// GET and HEAD only; the client's `Range` is forwarded to the origin and drives byte-range
    /// rules, so it is checked at the edge: a malformed or overflowing range is answered with 400.
    static func checkMethodAndRange(_ head: HTTPRequestHead) throws(Refusal) {
        guard head.method == .GET || head.method == .HEAD else {
            throw Refusal(.methodNotAllowed, "hlschaos proxies GET and HEAD only, not \(head.method.rawValue)", headers: ["allow": "GET, HEAD"])
        }
        let values = head.headers["range"]
        guard !values.isEmpty else { return }
        guard values.count == 1 else { throw Refusal(.badRequest, "hlschaos: a request may carry one Range header, this one has \(values.count)") }
        if case .invalid(let problem) = RangeHeader.parse(values[0]) { throw Refusal(.badRequest, "hlschaos: \(problem)") }
    }

    /// Everything the steps of one request share besides its state (`ClientChannel.request`).
    struct Exchange {
        let client: ClientChannel
        let path: ProxyPath
        let target: String
        let hop: Int
        var location: UpstreamLocation
        let session: Session
        /// The rules for this request: the URL's presets; the control and session layers are added
        /// when the plan is made (`decide`), under the session's lock.
        var engine: RuleEngine
        var prefetched: UpstreamResponse?
        var prefetchedBody: ByteBuffer?

        var tag: ResourceTag? { client.request.tag }
        var plan: FaultPlan { client.request.plan }
    }

    /// The request read in the proxy's grammar, resolved to its upstream, its presets and session found.
    private func exchange(_ client: ClientChannel, target: String, hop: Int) async throws -> Exchange {
        let path = try await address(client, target: target)
        client.request.addressed(session: path.session, tag: path.tag)
        let location = try resolve(path)
        let captures = recorder.captures(session: client.request.session, url: location.url, arrived: client.request.arrived)
        if !captures.isEmpty { client.request.recording(into: captures) }
        let engine: RuleEngine
        do {
            engine = try rules.engine(presets: path.presets)
        } catch {
            let status: HTTPResponseStatus = if case .tooMany = error { .badRequest } else { .notFound }
            throw Refusal(status, error.description)
        }
        let session = sessions.session(for: path.session)
        client.travel(on: session.link)
        return Exchange(
            client: client, path: path, target: target, hop: hop, location: location, session: session, engine: engine)
    }

    /// An entry URL (no tag): a media file by its extension; a playlist is fetched first, since
    /// only its content says master or media.
    private func classifyEntry(_ exchange: inout Exchange) async throws {
        guard exchange.tag == nil else { return }
        let pathExtension = exchange.location.pathExtension ?? ""
        if ResourceGuess.mediaExtensions.contains(pathExtension) {
            exchange.client.request.classified(ResourceTag(kind: .segment))
        } else if ResourceGuess.playlistExtensions.contains(pathExtension) {
            let fetched = try await fetch(exchange, expectsPlaylist: true)
            exchange.prefetched = fetched
            if (200..<300).contains(fetched.status) {
                let body = try await collect(fetched, exchange.client)
                exchange.prefetchedBody = body
                if let tag = body.withUnsafeReadableBytes({ ResourceTag(entryPlaylist: $0) }) { exchange.client.request.classified(tag) }
            }
        }
    }

    /// The plan, made with the control and session layers, under one hold of the session's lock.
    /// The session's link is its own (set through the API), else the first layer's that has one,
    /// else `serve --link`'s.
    private func decide(_ exchange: inout Exchange, now: Duration) {
        let head = exchange.client.requestHead
        let session = exchange.session
        let (engine, plan) = session.memory.withLockedValue { state -> (RuleEngine, FaultPlan?) in
            var engine = exchange.engine
            let global = control.layer
            if global != nil || state.layer != nil { engine = engine.inserting([global, state.layer].compactMap { $0 }, beforeLayer: 1) }
            if let problem = session.link.want(state.ownLink ?? engine.link ?? configuration.link, ladder: { Session.ladder(state.catalog) }) {
                logger.warning("\(problem)", metadata: ["session": "\(session.id)"])
            }
            guard let tag = exchange.tag else { return (engine, nil) }
            let plan = engine.plan(
                for: RequestFacts(
                    tag: tag, session: exchange.session, catalog: state.catalog, head: head, upstream: exchange.location,
                    cmcd: exchange.client.request.cmcd),
                state: &state.rules, now: now)
            return (engine, plan)
        }
        exchange.engine = engine
        if let plan { exchange.client.request.planned(plan) }
    }

    private func serve(_ exchange: inout Exchange) async throws -> Disposition {
        let now = clock.now()
        decide(&exchange, now: now)
        let plan = exchange.plan
        // Read once: each read of the tag copies it out of the request's state.
        let kind = exchange.tag?.kind
        let expectsPlaylist = kind == .media || kind == .master
        if plan.content.contains(where: { $0.action == .ignoreDirectives }) {
            exchange.location = exchange.location.with(pathAndQuery: DeliveryDirectives.removed(from: exchange.location.pathAndQuery))
        }
        if let delay = plan.delay { try await Task.sleep(for: delay) }
        if let own = OwnAnswer(plan: plan, target: exchange.target, hop: exchange.hop) {
            exchange.prefetched?.body.cancel()
            return try await perform(own, exchange.client)
        }
        let response: UpstreamResponse
        if let prefetched = exchange.prefetched {
            response = prefetched
        } else {
            response = try await fetch(exchange, expectsPlaylist: expectsPlaylist)
        }
        let succeeded = (200..<300).contains(response.status)
        if succeeded, expectsPlaylist || ResourceGuess.isPlaylistContentType(response.header("content-type")) {
            return try await servePlaylist(response, exchange, now: now)
        }
        if let prefetched = exchange.prefetchedBody {
            // An entry .m3u8 that turned out not to be a playlist: its body has been read already.
            return try await sendBuffered(prefetched, response: response, rewritten: false, exchange.client)
        }
        if succeeded, kind == .steering {
            let original = try await Array(collect(response, exchange.client).readableBytesView)
            let manifest = SteeringManifestRewriter(request: exchange.path, allowlist: allowlist)
                .rewrite(original, upstreamURL: response.effectiveURL, steps: plan.content)
            return try await sendBuffered(ByteBuffer(bytes: manifest), response: response, rewritten: manifest != original, exchange.client)
        }
        if succeeded, !plan.content.isEmpty, let kind = kind?.resourceKind, kind == .key || kind == .sessionData {
            let collected = try await collect(response, exchange.client)
            let damaged = ContentDamage.apply(plan.content, to: Array(collected.readableBytesView), kind: kind)
            return try await sendBuffered(ByteBuffer(bytes: damaged), response: response, rewritten: true, exchange.client)
        }
        return try await stream(response, exchange.client)
    }

    /// A playlist: collected, learnt from, rewritten and damaged as planned (`PlaylistResponder`).
    private func servePlaylist(_ response: UpstreamResponse, _ exchange: Exchange, now: Duration) async throws -> Disposition {
        let client = exchange.client
        var upstreamBody: ByteBuffer
        if let prefetched = exchange.prefetchedBody { upstreamBody = prefetched } else { upstreamBody = try await collect(response, client) }
        let tag = exchange.tag ?? upstreamBody.withUnsafeReadableBytes { ResourceTag(entryPlaylist: $0) } ?? ResourceTag(kind: .media)
        client.request.classified(tag)
        let clientPath = String(Substring(exchange.target.utf8.prefix { $0 != UInt8(ascii: "?") }))
        let result = PlaylistResponder(
            request: exchange.path, clientPath: clientPath,
            allowlist: allowlist, session: exchange.session,
            recordsHistory: exchange.engine.needsPlaylistHistory, historyHorizon: exchange.engine.historyHorizon,
            now: now, cache: rewrites,
            historyNotice: historyNotice
        ).respond(upstream: upstreamBody, effectiveURL: response.effectiveURL, tag: tag, steps: exchange.plan.content)
        if result.isPlaylist, !client.request.captures.isEmpty {
            let served = RequestCapture.originView(of: Array(result.body.readableBytesView), clientPath: clientPath)
            for capture in client.request.captures { capture.playlist = served }
        }
        return try await sendBuffered(result.body, response: response, rewritten: result.isPlaylist, client)
    }

    // MARK: - Faults answered by the proxy itself

    /// What a plan answers without the origin.
    enum OwnAnswer {
        case refuse(Refusal)
        /// No answer, for a while (nil: until the client gives up).
        case hang(Duration?)
        case reset

        /// nil for most requests: asked of every one, so nothing is built before the plan says so.
        init?(plan: FaultPlan, target: String, hop: Int) {
            switch plan.response {
            case .status(let code, let extra, let body):
                var headers = HTTPHeaders(extra.map { ($0.name, $0.value) })
                headers.replaceOrAdd(name: "x-hlschaos-fault", value: ProxyHandler.faultHeader(plan))
                let status = HTTPResponseStatus(statusCode: code)
                self = .refuse(body.map { Refusal(status, body: Array($0.utf8), headers: headers) }
                    ?? Refusal(status, "hlschaos: \(code) injected by rule \(Self.rule(plan))", headers: headers))
            case .hang(let duration):
                self = .hang(duration)
            case .reset(.beforeHeaders):
                self = .reset
            case .redirect(let status, let hops, let loop) where loop || hop < hops:
                var headers = Self.faultHeaders(plan)
                headers.add(name: "location", value: RedirectHop.target(target, hop: loop ? (hop + 1) % 2 : hop + 1))
                self = .refuse(Refusal(
                    HTTPResponseStatus(statusCode: status), "hlschaos: redirect \(hop + 1) injected by rule \(Self.rule(plan))", headers: headers))
            case .rejectRanges:
                self = .refuse(Refusal(
                    .notImplemented, "hlschaos: byte-range requests refused (501) by rule \(Self.rule(plan))", headers: Self.faultHeaders(plan)))
            default:
                return nil
            }
        }

        private static func rule(_ plan: FaultPlan) -> String { plan.responseRule?.description ?? "?" }
        private static func faultHeaders(_ plan: FaultPlan) -> HTTPHeaders { ["x-hlschaos-fault": ProxyHandler.faultHeader(plan)] }
    }

    private func perform(_ answer: OwnAnswer, _ client: ClientChannel) async throws -> Disposition {
        switch answer {
        case .refuse(let refusal):
            throw refusal
        case .hang(let duration):
            client.request.end(.hang)
            guard let duration else {
                // Until the client gives up (the request task is cancelled when it disconnects).
                while true { try await Task.sleep(for: .seconds(3600)) }
            }
            try await Task.sleep(for: duration)
            await client.close()
            return .close
        case .reset:
            client.request.end(.reset)
            await client.reset()
            return .close
        }
    }

    // MARK: - Upstream

    private func fetch(_ exchange: Exchange, expectsPlaylist: Bool) async throws -> UpstreamResponse {
        let client = exchange.client
        // A blocking reload may be held by the origin for up to three target durations: the
        // timeouts start counting after that.
        let hold = expectsPlaylist && BlockingReload.asksToBlock(exchange.location.pathAndQuery)
            ? BlockingReload.hold(targetDuration: exchange.session.memory.withLockedValue { $0.catalog.targetDuration }) : nil
        let stripCMCD = stripsCMCD(client, exchange.session)
        let url = stripCMCD ? CMCDStrip.target(exchange.location.url) : exchange.location.url
        let request = UpstreamRequest(
            url: url,
            method: client.isHEAD && !expectsPlaylist ? .head : .get,
            headers: HeaderPolicy.upstreamRequestHeaders(from: client.requestHead.headers, isPlaylist: expectsPlaylist, dropCMCD: stripCMCD),
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
        client.request.fetching(url)
        do {
            let response = try await upstream.fetch(request)
            client.request.upstreamAnswered(response)
            return response
        } catch {
            throw upstreamFailed(error, client)
        }
    }

    private func collect(_ response: UpstreamResponse, _ client: ClientChannel) async throws -> ByteBuffer {
        do {
            return try await response.body.collectBuffer(upTo: configuration.maxPlaylistBytes)
        } catch {
            throw upstreamFailed(error, client)
        }
    }

    private func upstreamFailed(_ error: UpstreamError, _ client: ClientChannel) -> any Error {
        let thrown = client.request.upstreamFailed(error)
        if case .refusedAddress = error {} else if thrown is Refusal {
            logger.info("upstream failed", metadata: ["uri": "\(client.requestHead.uri)", "error": "\(error)"])
        }
        return thrown
    }

    // MARK: - Responses

    /// The origin's headers as the client gets them, and the `Content-Length` kept among them.
    private func responseHeaders(_ response: UpstreamResponse, plan: FaultPlan, rewritten: Bool) -> (ResponseFields, length: Int?) {
        var (fields, length, invalid) = HeaderPolicy.clientResponseHeaders(from: response.headers, isPlaylist: rewritten)
        if !invalid.isEmpty {
            logger.warning("dropped response headers that are not valid HTTP", metadata: [
                "url": "\(response.effectiveURL)", "headers": "\(invalid.map { $0.debugDescription }.joined(separator: ", "))"])
        }
        if case .contentType(let type) = plan.response { fields.replaceOrAdd(name: "content-type", value: type) }
        if !plan.matchedRules.isEmpty { fields.replaceOrAdd(name: "x-hlschaos-fault", value: Self.faultHeader(plan)) }
        return (fields, length)
    }

    /// A body the proxy holds whole (a rewritten playlist, a damaged key).
    private func sendBuffered(_ body: ByteBuffer, response: UpstreamResponse, rewritten: Bool, _ client: ClientChannel) async throws -> Disposition {
        let plan = client.request.plan
        var (fields, _) = responseHeaders(response, plan: plan, rewritten: rewritten)
        // A 204 or 304 has no body (RFC 9110 §15.3.5, §15.4.5): what a rule's damage made of its
        // empty one is not sent, or the client would read it as the start of the next response.
        if response.status == 204 || response.status == 304 {
            try await client.sendHead(HTTPResponseStatus(statusCode: response.status), fields: consume fields)
            try await client.sendEnd()
            return .keepAlive
        }
        fields.replaceOrAdd(name: "content-length", value: String(body.readableBytes))
        try await client.sendHead(HTTPResponseStatus(statusCode: response.status), fields: consume fields)
        var shaper = BodyShaper(plan.response, contentLength: body.readableBytes)
        if client.isHEAD || shaper.isPassthrough {
            try await client.sendBody(body, end: true)
            return .keepAlive
        }
        var outcome = try await shaper.send(Array(body.readableBytesView), to: client)
        if outcome == .more { outcome = try await shaper.finish(client: client) }
        if outcome == .cut { return cut(shaper, client) }
        try await client.sendEnd()
        return .keepAlive
    }

    /// Passes a response through as it arrives; the transfer pauses while the client is slow.
    private func stream(_ response: UpstreamResponse, _ client: ClientChannel) async throws -> Disposition {
        let (fields, contentLength) = responseHeaders(response, plan: client.request.plan, rewritten: false)
        // Without a length an HTTP/1.0 client can only find the end of the body by the close.
        if contentLength == nil, client.requestHead.version.major == 1, client.requestHead.version.minor == 0 { client.closeAfterResponse() }
        try await client.sendHead(HTTPResponseStatus(statusCode: response.status), fields: consume fields)
        if client.isHEAD {
            response.body.cancel()
            try await client.sendEnd()
            return .keepAlive
        }
        var shaper = BodyShaper(client.request.plan.response, contentLength: contentLength)
        do {
            for try await chunk in response.body {
                if shaper.isPassthrough {
                    // The usual case: a last chunk leaves with the end of the response.
                    let last = response.body.isDrained
                    try await client.sendBody(chunk, end: last)
                    if last { return .keepAlive }
                } else if try await shaper.send(Array(chunk.readableBytesView), to: client) == .cut {
                    response.body.cancel()
                    return cut(shaper, client)
                }
            }
        } catch let error as UpstreamError {
            switch client.request.upstreamBodyFailed(error) {
            case .cancelled: throw CancellationError()
            case .closeConnection:
                logger.info("upstream body failed", metadata: ["uri": "\(client.requestHead.uri)", "error": "\(error)"])
                await client.close()
                return .close
            }
        } catch {
            response.body.cancel()
            throw error
        }
        if try await shaper.finish(client: client) == .cut { return cut(shaper, client) }
        try await client.sendEnd()
        return .keepAlive
    }

    /// A body a fault cut short: the connection is gone (FIN or RST).
    private func cut(_ shaper: BodyShaper, _ client: ClientChannel) -> Disposition {
        client.request.end(shaper.reset ? .reset : .truncated)
        return .close
    }

    static func faultHeader(_ plan: FaultPlan) -> String {
        plan.matchedRules.map(\.description).joined(separator: ", ")
    }

    // MARK: - Resolution

    private func resolve(_ path: ProxyPath) throws(Refusal) -> UpstreamLocation {
        switch path.route {
        case .origin(let name, let pathAndQuery):
            if let location = configuration.resolve(origin: name, pathAndQuery: pathAndQuery) { return location }
            if let name {
                let known = configuration.origins.keys.sorted().joined(separator: ", ")
                throw Refusal(
                    .notFound,
                    "no origin named \"\(name)\" in the configuration (configured: \(known.isEmpty ? "none" : known))")
            }
            throw Refusal(
                .notFound,
                "no default origin: start hlschaos with --upstream URL, or ask for /@<origin>/… with an origin from the configuration")
        case .forward(_, let location):
            return location  // forward clients were let in by ForwardAccess
        case .rewritten(_, let location):
            guard allowlist.allows(location) else {
                let full = allowlist.isFull
                    ? "; note that the list of hosts learned from playlists is full (\(allowlist.learnedLimit), config \"maxLearnedHosts\"), so hosts named by playlists since then are refused too"
                    : ""
                throw Refusal(
                    .forbidden,
                    "\(location.authority) is not a configured origin and no playlist fetched through hlschaos pointed to it; hlschaos is not an open relay (add it to \"origins\" in the configuration)\(full)")
            }
            return location
        }
    }
}
