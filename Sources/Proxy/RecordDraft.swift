import Addressing
import Chaos
import Foundation
import NIOCore
import NIOHTTP1
import Records
import Upstream

/// How the data plane's values are written in a record: the plan's actions, the HTTP version,
/// the client's address. The record itself is made by `RequestStateMachine.record`.
enum RecordDraft {
    /// The plan in words, one entry per thing done ("delay 2s", "status 503", "gap").
    static func actions(_ plan: FaultPlan) -> [String] {
        if plan.isEmpty { return [] }  // most requests
        var actions: [String] = []
        if let delay = plan.delay { actions.append("delay \(delay.seconds)s") }
        if let response = plan.response { actions.append("\(response)") }
        actions += plan.content.map(\.action.name)
        return actions
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
