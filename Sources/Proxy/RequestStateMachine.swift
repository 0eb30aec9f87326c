import Addressing
import CMCD
import Chaos
import Foundation
import Link
import NIOHTTP1
import Records
import Upstream

/// One request's life, as a value: what it is (session, resource, plan), what the origin said,
/// what the client was sent and how the response ended. The data plane feeds it events as the
/// request goes; an event that leaves a choice returns what to do. Nothing else holds these facts:
/// the request's record is made from it, once, when the response is over.
///
/// The ending is set in one place (`end`), by the first event that ends the response; a later one
/// does not overwrite it (a hang that the client then leaves stays a hang). No sockets, no curl:
/// `RequestStateMachineTests` drive it alone.
struct RequestStateMachine {
    /// When the request head arrived (the record's time) and the instant its duration counts from.
    let arrived: Date
    let started: ContinuousClock.Instant

    private(set) var session = SessionStore.defaultID
    private(set) var tag: ResourceTag?
    private(set) var plan = FaultPlan()
    /// The URL the device asked for when the request target alone does not say it (inside an
    /// intercepted CONNECT the target is a path on the tunnel's host).
    private(set) var deviceURL: String?
    private(set) var upstream: RequestRecord.Upstream?
    /// The upstream body, for curl's total time once it has ended.
    private(set) var upstreamBody: UpstreamBody?
    /// The recordings this request goes into (usually none): they get the head and every body byte sent.
    private(set) var captures: [RequestCapture] = []
    /// What the client has been sent so far.
    private(set) var sent = Sent()
    private(set) var ending: RequestRecord.Ending?
    /// The CMCD the request carried (`RequestCMCD`), nil for most: boxed, so that the state of a
    /// request without it stays as small as it was.
    private var cmcdBox: RequestCMCD.Box?
    var cmcd: CMCDData? { cmcdBox?.data }
    /// What the session's link did to the response, once it is over.
    private(set) var link: RequestRecord.LinkTimes?

    struct Sent {
        /// A response was begun: a second one to the same request would desynchronise the client.
        var started = false
        var status: Int?
        var bodyBytes = 0
        /// The response headers worth keeping in a record.
        var headers: [RequestRecord.Header] = []
    }

    init(arrived: Date = Date(), started: ContinuousClock.Instant = .now) {
        self.arrived = arrived
        self.started = started
    }

    // MARK: - What the request is

    /// A forward client was admitted as `session` (before its URL is read: a refusal of the URL is
    /// still the session's).
    mutating func admitted(session: String) { self.session = session }

    /// The request was read in the proxy's grammar.
    mutating func addressed(session: String?, tag: ResourceTag?) {
        self.session = session ?? SessionStore.defaultID
        self.tag = tag
    }

    /// The URL the device asked for, where the request target is only a path on a tunnel's host.
    mutating func asked(for url: String) { deviceURL = url }

    /// An entry URL's resource, once its extension or its body said what it is.
    mutating func classified(_ tag: ResourceTag) { self.tag = tag }

    mutating func recording(into captures: [RequestCapture]) { self.captures = captures }

    mutating func planned(_ plan: FaultPlan) { self.plan = plan }

    mutating func carried(_ cmcd: CMCDData) { cmcdBox = RequestCMCD.Box(data: cmcd) }

    // MARK: - The origin

    mutating func fetching(_ url: String) { upstream = RequestRecord.Upstream(url: url) }

    mutating func upstreamAnswered(_ response: UpstreamResponse) {
        upstream?.status = response.status
        upstream?.connect = response.timings.connect
        upstream?.firstByte = response.timings.firstByte
        upstreamBody = response.body
        if response.effectiveURL != upstream?.url { upstream?.url = response.effectiveURL }
    }

    /// The fetch or the collection of a body failed before the client was answered: the error to
    /// throw — the client's own cancellation, or the proxy's answer (403 for an address libcurl's
    /// guard refused, 504 for a timeout, 502 otherwise).
    mutating func upstreamFailed(_ error: UpstreamError) -> any Error {
        if case .cancelled = error { return CancellationError() }
        upstream?.error = error.description
        if case .refusedAddress = error { return Refusal(.forbidden, "hlschaos: \(error)") }
        return Refusal(
            error.isTimeout ? .gatewayTimeout : .badGateway,
            "hlschaos: upstream \(error.isTimeout ? "timed out" : "failed"): \(error)")
    }

    /// What to do when the origin's body breaks while it streams to the client.
    enum BodyFailure: Equatable {
        /// The client went away: its task is being cancelled.
        case cancelled
        /// Headers are out: the only honest signal left is a connection that ends early.
        case closeConnection
    }

    mutating func upstreamBodyFailed(_ error: UpstreamError) -> BodyFailure {
        if case .cancelled = error { return .cancelled }
        upstream?.error = error.description
        end(.truncated)
        return .closeConnection
    }

    // MARK: - The client

    /// A second response head for one request. The connection is closed instead: a keep-alive
    /// client would read the extra answer as the response to its next request.
    struct SecondResponse: Error, CustomStringConvertible {
        var description: String { "a second response to one request was refused and the connection closed" }
    }

    /// The response headers a record keeps (what a request log or a HAR viewer shows): the first
    /// of each `KnownHeaderName.recorded`, in that order (noted by `ResponseFields` as they
    /// were added).
    mutating func headSent(_ status: HTTPResponseStatus, fields: ResponseFields) throws(SecondResponse) {
        guard !sent.started else { throw SecondResponse() }
        sent.started = true
        sent.status = Int(status.code)
        sent.headers.reserveCapacity(KnownHeaderName.recorded.count)  // one allocation, not one per growth
        for (known, name) in KnownHeaderName.recorded {
            if let value = fields.first(known) { sent.headers.append(.init(name, value)) }
        }
    }

    /// A response the connection's next handlers send (the 200 of a CONNECT) counts as this request's.
    mutating func answeredByConnection(_ status: HTTPResponseStatus) {
        sent.started = true
        sent.status = Int(status.code)
    }

    mutating func bodySent(_ count: Int) { sent.bodyBytes += count }

    // MARK: - Endings

    /// The response ended in a way of its own (a fault's hang, reset or cut, a refused second
    /// response). The first ending stands.
    mutating func end(_ ending: RequestRecord.Ending) {
        if self.ending == nil { self.ending = ending }
    }

    /// The request's task ended with an error: the client went away, its socket broke, or a fault
    /// closed the connection on purpose.
    mutating func failed(connectionOpen: Bool) {
        end(connectionOpen ? .closed : .clientAbort)
    }

    /// The response left the session's link.
    mutating func linked(_ account: LinkFlowAccount) {
        link = RequestRecord.LinkTimes(
            latency: account.headDelay.seconds, waited: account.waitedForCapacity.seconds, stalled: account.stalled.seconds)
    }

    // MARK: - The record

    /// The response is over: an ending not set by then is `complete`. Returns the record.
    /// (Mutating, so that the data plane reads its request's state in place rather than copying it.)
    mutating func finish(head: HTTPRequestHead, client: String) -> RequestRecord {
        end(.complete)
        return record(head: head, client: client)
    }

    /// The request's record (its id is given by `RecordLog.emit`).
    func record(head: HTTPRequestHead, client: String, now: ContinuousClock.Instant = .now) -> RequestRecord {
        var upstream = upstream
        if let total = upstreamBody?.totalSeconds { upstream?.total = total }
        var requestHeaders: [RequestRecord.Header] = []
        if let range = head.headers.first(name: "range") { requestHeaders.append(.init("range", range)) }
        if let agent = head.headers.first(name: "user-agent") { requestHeaders.append(.init("user-agent", agent)) }
        return RequestRecord(
            id: 0, time: arrived, session: session, client: client,
            method: head.method.rawValue, path: deviceURL ?? head.uri,
            kind: tag?.resourceKind, variant: tag?.variant, rendition: tag?.rendition,
            iFrameVariant: tag?.iFrameVariant, copy: tag?.backup == true ? "backup" : nil, msn: tag?.msn, part: tag?.part,
            pathway: tag?.pathway, upstream: upstream,
            matchedRules: plan.matchedRules.map(\.description),
            decidingRules: .init(
                response: plan.responseRule?.description, delay: plan.delayRule?.description,
                content: plan.content.map(\.rule.description)),
            actions: RecordValues.actions(plan), status: sent.status, bytesSent: sent.bodyBytes,
            ending: ending ?? .complete, duration: (now - started).seconds,
            requestHeaders: requestHeaders, responseHeaders: sent.headers, httpVersion: RecordValues.versionName(head.version),
            link: link, cmcd: cmcd.map(RequestRecord.CMCD.init))
    }
}

/// A response of the proxy's own making that ends a request: a refusal of what the client asked
/// (a bad target, a host that is not allowed, a missing origin), an origin that failed, or a status
/// a rule injects. Thrown where it is decided and answered in one place, `ProxyHandler.answer`.
struct Refusal: Error, CustomStringConvertible {
    var status: HTTPResponseStatus
    var headers: HTTPHeaders
    /// The body, text/plain unless `headers` say otherwise.
    var body: [UInt8]

    /// A one-line text answer.
    init(_ status: HTTPResponseStatus, _ message: String, headers: HTTPHeaders = [:]) {
        self.init(status, body: Array((message + "\n").utf8), headers: headers)
    }

    init(_ status: HTTPResponseStatus, body: [UInt8], headers: HTTPHeaders = [:]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    var description: String { "\(status.code) \(String(decoding: body.prefix(200), as: UTF8.self))" }
}
