import CMCD
import Foundation

/// The stalls a session's player had that are known from outside its CMCD, on the session's clock
/// (seconds since its first request): what `CMCDConformance` holds the player's `bs` / `sta=r` to.
extension CMCDKnownStall {
    /// A segment held this much longer than the buffer the player claimed made it stall: rounding
    /// (`bl` to 100 ms) and the time a request takes cannot.
    public static let drainMargin = 0.5

    /// The segments and parts held (a hang, a delay or stall fault, the link's latency and time
    /// down) longer than the buffer the player last claimed (`bl` of the request, else of the latest
    /// before it), by `drainMargin` or more: the buffer ran dry at the request's arrival plus that
    /// buffer. Requests the player marked as startup (`su`) and those before it claimed a buffer are
    /// left out. One pass.
    public static func held(in records: [RequestRecord]) -> [CMCDKnownStall] {
        let records = records.streamRecords.sorted(by: RequestRecord.chronological)
        guard let origin = records.first?.time else { return [] }
        var lastClaimed: Int?
        var stalls: [CMCDKnownStall] = []
        for record in records {
            let cmcd = record.parsedCMCD
            if let claimed = cmcd?.bufferLength { lastClaimed = claimed }
            guard record.isMediaData, cmcd?.su != true, let buffer = lastClaimed else { continue }
            let held = record.heldSeconds, claimed = Double(buffer) / 1000
            guard held >= claimed + drainMargin else { continue }
            let arrival = record.time.timeIntervalSince(origin)
            stalls.append(CMCDKnownStall(
                time: arrival + claimed, end: arrival + held,
                cause: "\(record.reportResource.words) held \(Self.seconds(held)) with \(Self.seconds(claimed)) of buffer claimed"))
        }
        return stalls
    }

    /// The player driver's stalls (`at` seconds since the player started, `duration`), on the
    /// session's clock: the player's clock starts at the session's first request (a browser page
    /// loads its source as its script starts).
    public static func reported(_ stalls: [(at: Double, duration: Double)]) -> [CMCDKnownStall] {
        stalls.map { CMCDKnownStall(time: $0.at, end: $0.at + max(0, $0.duration), cause: "the player reported it, \(Self.seconds(max(0, $0.duration))) long") }
    }

    static func seconds(_ value: Double) -> String { String(format: "%.1f s", value) }
}

extension RequestRecord {
    /// Seconds the response was held back on purpose or by the link: a hang's whole time, else the
    /// delay and stall faults plus the link's latency and time down.
    var heldSeconds: Double {
        if ending == .hang { return duration }
        let faults = actions.reduce(0.0) { total, action in
            switch action.kind {
            case .delay(let seconds), .stall(_, let seconds): total + seconds
            default: total
            }
        }
        return faults + (link.map { $0.latency + $0.stalled } ?? 0)
    }
}
