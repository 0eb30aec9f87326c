import Addressing
import Chaos
import Foundation
import NIOCore
import NIOHTTP1
import Records
import Upstream

/// The record of one request while it is being answered: each step of `ProxyHandler` writes what
/// it learnt (session, resource, plan, upstream outcome, how a fault ended the response), and
/// `ClientChannel` counts what the client was actually sent. Turned into a `RequestRecord` once,
/// when the response ends. Touched only by the request's own task.
final class RecordDraft: @unchecked Sendable {
    let time = Date()
    let started = ContinuousClock.now
    var session = SessionStore.defaultID
    var tag: ResourceTag?
    var plan = FaultPlan()
    var upstream: RequestRecord.Upstream?
    /// The upstream body, for curl's total time once it has ended.
    var upstreamBody: UpstreamBody?
    /// Set where a fault or a failure ends the response in a way of its own.
    var ending: RequestRecord.Ending?
    /// The URL the device asked for when the request target alone does not say it (inside an
    /// intercepted CONNECT the target is a path on the tunnel's host).
    var url: String?
    /// The recordings this request goes into (usually none).
    var captures: [RequestCapture] = []

    /// The record as it stands (its id is given by `RecordLog.emit`).
    func record(client: ClientChannel, ending fallback: RequestRecord.Ending) -> RequestRecord {
        let head = client.requestHead
        let sent = client.progress
        var upstream = upstream
        if let total = upstreamBody?.totalSeconds { upstream?.total = total }
        var requestHeaders: [RequestRecord.Header] = []
        if let range = head.headers.first(name: "range") { requestHeaders.append(.init("range", range)) }
        if let agent = head.headers.first(name: "user-agent") { requestHeaders.append(.init("user-agent", agent)) }
        return RequestRecord(
            id: 0, time: time, session: session, client: client.clientAddress,
            method: head.method.rawValue, path: url ?? head.uri,
            kind: tag?.resourceKind, variant: tag?.variant, rendition: tag?.rendition,
            iFrameVariant: tag?.iFrameVariant, copy: tag?.backup == true ? "backup" : nil, msn: tag?.msn, part: tag?.part,
            pathway: tag?.pathway, upstream: upstream,
            matchedRules: plan.matchedRules.map(\.description),
            decidingRules: .init(
                response: plan.responseRule?.description, delay: plan.delayRule?.description,
                content: plan.content.map(\.rule.description)),
            actions: Self.actions(plan), status: sent.status, bytesSent: sent.bodyBytes,
            ending: ending ?? fallback, duration: (ContinuousClock.now - started).seconds,
            requestHeaders: requestHeaders, responseHeaders: sent.headers, httpVersion: Self.versionName(head.version))
    }

    /// The plan as the record's actions, each with its deciding rule: the delay, the response's
    /// action, the content changes in file order.
    static func actions(_ plan: FaultPlan) -> [RequestRecord.Action] {
        if plan.isEmpty { return [] }  // most requests
        var actions: [RequestRecord.Action] = []
        if let delay = plan.delay { actions.append(.init(.delay(seconds: delay.seconds), rule: plan.delayRule?.description)) }
        if let response = plan.response { actions.append(.init(kind(response), rule: plan.responseRule?.description)) }
        actions += plan.content.map { RequestRecord.Action(.content($0.action.name), rule: $0.rule.description) }
        return actions
    }

    /// A wire action as a record's action kind.
    private static func kind(_ action: WireAction) -> RequestRecord.Action.Kind {
        switch action {
        case .status(let code, _, _): .status(code)
        case .hang(let duration): .hang(seconds: duration?.seconds)
        case .throttle(let rate): .throttle(bytesPerSecond: rate)
        case .stall(let after, let duration): .stall(afterBytes: after, seconds: duration.seconds)
        case .reset(.beforeHeaders): .reset(.beforeHeaders)
        case .reset(.afterBytes(let count)): .reset(.afterBytes(count))
        case .truncate(.afterBytes(let count)): .truncate(.afterBytes(count))
        case .truncate(.fraction(let fraction)): .truncate(.fraction(fraction))
        case .corrupt(let bytes, _): .corrupt(bytes: bytes)
        case .contentType(let type): .contentType(type)
        case .redirect(let status, let hops, let loop): .redirect(status: status, hops: hops, loop: loop)
        case .rejectRanges: .rejectRanges
        }
    }

    static func versionName(_ version: HTTPVersion) -> String {
        switch (version.major, version.minor) {
        case (1, 1): "HTTP/1.1"
        case (2, _): "HTTP/2"
        case (1, 0): "HTTP/1.0"
        default: "HTTP/\(version.major).\(version.minor)"
        }
    }

    static func address(_ address: SocketAddress?) -> String {
        guard let address, let ip = address.ipAddress else { return "" }
        let port = address.port.map(String.init) ?? "0"
        if case .v6 = address { return "[\(ip)]:\(port)" }
        return "\(ip):\(port)"
    }
}
