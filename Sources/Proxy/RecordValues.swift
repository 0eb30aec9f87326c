import Addressing
import Chaos
import Foundation
import NIOCore
import NIOHTTP1
import Records
import Upstream

/// How the data plane's values are written in a record: the plan's actions, the HTTP version,
/// the client's address. The record itself is made by `RequestStateMachine.record`.
enum RecordValues {
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
