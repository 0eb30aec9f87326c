import Addressing
import Chaos
import Foundation
import Records

/// Swift Testing has an `Expectation` type too; in this module the name means the scenario's.
typealias Expectation = Chaos.Expectation

/// Builds a session's request records the way the proxy writes them (ids in order, times in
/// seconds from a fixed start).
struct Traffic {
    static let origin = "http/127.0.0.1:8000/vod/ts"
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    var session = "tv1"
    private(set) var records: [RequestRecord] = []

    /// The demo origin's three variants.
    static let bandwidths = [0: 400_000, 1: 800_000, 2: 1_600_000]

    func at(_ seconds: Double) -> Date { start.addingTimeInterval(seconds) }

    /// Master playlist, then the variant's media playlist.
    mutating func start(variant: Int) {
        add(0, kind: .master, tag: "~master", file: "master.m3u8", status: 200)
        media(0.1, variant: variant)
    }

    @discardableResult
    mutating func media(_ time: Double, variant: Int? = nil, rendition: Int? = nil, copy: String? = nil, status: Int? = 200,
                        actions: [RequestRecord.Action] = [], content: [String] = [], rules: [String] = []) -> UInt64 {
        let owner = variant.map { "v\($0)" } ?? rendition.map { "r\($0)" } ?? ""
        return add(time, kind: .media, variant: variant, rendition: rendition, copy: copy,
                   tag: "~media.\(owner)\(copy == nil ? "" : ".b")", file: "\(owner)/index.m3u8", status: status,
                   actions: actions, content: content, rules: rules)
    }

    @discardableResult
    mutating func segment(_ time: Double, variant: Int, msn: Int, copy: String? = nil, status: Int? = 200,
                          ending: RequestRecord.Ending = .complete, actions: [RequestRecord.Action]? = nil, rules: [String]? = nil,
                          pathway: String? = nil) -> UInt64 {
        add(time, kind: .segment, variant: variant, copy: copy, msn: msn,
            tag: "~seg.v\(variant).n\(msn)\(copy == nil ? "" : ".b")\(pathway.map { "~" + $0 } ?? "")", file: "v\(variant)/segment\(msn).ts",
            status: status, ending: ending, duration: 0.15, actions: actions, rules: rules, pathway: pathway)
    }

    /// A request for the content-steering manifest.
    @discardableResult
    mutating func steering(_ time: Double, status: Int? = 200, actions: [RequestRecord.Action]? = nil) -> UInt64 {
        add(time, kind: .steering, tag: "~steering", file: "manifest.json", status: status, actions: actions)
    }

    /// Segments `msns` of `variant`, one every `every` seconds from `from`.
    mutating func segments(_ msns: ClosedRange<Int>, variant: Int, from: Double, every: Double = 2) {
        for (offset, msn) in msns.enumerated() { segment(from + Double(offset) * every, variant: variant, msn: msn) }
    }

    /// `actions` default to a `status` action for N ≥ 400 (a status fault); `rules` to a test rule when faulted.
    @discardableResult
    mutating func add(
        _ time: Double, kind: ResourceKind?, variant: Int? = nil, rendition: Int? = nil, copy: String? = nil,
        msn: Int? = nil, tag: String, file: String, status: Int?, ending: RequestRecord.Ending = .complete,
        duration: Double = 0.04, actions: [RequestRecord.Action]? = nil, content: [String] = [], rules: [String]? = nil, pathway: String? = nil
    ) -> UInt64 {
        let id = UInt64(records.count + 1)
        let statusFault = status.flatMap { $0 >= 400 ? $0 : nil }
        let matched = rules ?? (actions?.isEmpty == false || (actions == nil && statusFault != nil) ? ["test/rule"] : [])
        let faults = actions ?? statusFault.map { [RequestRecord.Action(.status($0), rule: matched.first)] } ?? []
        records.append(RequestRecord(
            id: id, time: at(time), session: session, client: "192.168.1.20:51234", method: "GET",
            path: "/s/\(session)/\(tag)/\(Self.origin)/\(file)", kind: kind, variant: variant, rendition: rendition,
            copy: copy, msn: msn, pathway: pathway, matchedRules: matched,
            decidingRules: .init(response: faults.first { $0.name == "status" }.map { _ in matched.first ?? "test/rule" },
                                 content: content),
            actions: faults, status: status, bytesSent: status == 200 ? 1000 : 0, ending: ending, duration: duration))
        return id
    }

    func report(now: Double, targetDuration: Double? = nil, lastMSN: [Int: Int] = [:], idleThreshold: Double? = nil) -> ReactionReport {
        ReactionReport.analyze(records, now: at(now), targetDuration: targetDuration, bandwidths: Self.bandwidths,
                               lastMSN: lastMSN, idleThreshold: idleThreshold)
    }
}
