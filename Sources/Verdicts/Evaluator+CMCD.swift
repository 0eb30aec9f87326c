import CMCD
import Chaos
import Foundation
import Records

/// The checks read off the CMCD the player sent (`RequestRecord.cmcd`): its buffer, its startup,
/// and whether what it sent was well-formed and conformant.
extension RunFacts {
    var playerTimeline: PlayerTimeline { PlayerTimeline.build(records) }

    /// Once `bl` reached the floor, it never fell below it; startup requests (`su`) are not counted.
    func bufferNeverBelow(_ floor: Duration) -> Finding {
        let milliseconds = Int((floor.seconds * 1000).rounded())
        let points = playerTimeline.points.filter { $0.bufferLength != nil && $0.startup != true }
        guard !points.isEmpty else { return .unjudged("no request carried a CMCD buffer length (bl) outside startup") }
        guard let reached = points.firstIndex(where: { $0.bufferLength! >= milliseconds }) else {
            let highest = points.map { $0.bufferLength! }.max() ?? 0
            return Finding(passed: false, observed: "the buffer never reached \(seconds(floor.seconds)) (highest \(Self.bufferWords(highest)))",
                           evidence: points.prefix(1).map(\.record))
        }
        let after = points[reached...]
        let lowest = after.min { $0.bufferLength! < $1.bufferLength! }!
        if lowest.bufferLength! < milliseconds {
            let below = after.filter { $0.bufferLength! < milliseconds }
            return Finding(
                passed: false,
                observed: "the buffer fell to \(Self.bufferWords(lowest.bufferLength!)) at \(seconds(lowest.time)) (\(below.count) request\(below.count == 1 ? "" : "s") below \(seconds(floor.seconds)))",
                evidence: [lowest.record] + below.prefix(5).map(\.record).filter { $0 != lowest.record })
        }
        return Finding(passed: true, observed: "lowest buffer \(Self.bufferWords(lowest.bufferLength!)) after it first reached \(seconds(floor.seconds))",
                       evidence: [lowest.record])
    }

    /// The player's startup as CMCD tells it (`msd`, else the first `sta=p`, else the end of its first startup requests).
    func startupWithin(_ limit: Duration) -> Finding {
        guard let startup = playerTimeline.startup else {
            return .unjudged("the player's CMCD does not say when it started (no msd, sta or su)")
        }
        let source = switch startup.source {
        case "msd": "msd"
        case "sta": "the first sta=p"
        default: "the end of its startup (su) requests"
        }
        return Finding(passed: startup.seconds <= limit.seconds + 0.0005, observed: "started in \(seconds(startup.seconds)) (\(source))")
    }

    func cmcdValid() -> Finding {
        let session = CMCDSessionConformance(records, playerStalls: CMCDKnownStall.reported(player?.stalls.map { ($0.at, $0.duration) } ?? []))
        guard session.conformance.requestsWithCMCD > 0 else { return .unjudged("no request carried CMCD") }
        if session.isValid {
            return Finding(passed: true, observed: "\(session.conformance.requestsWithCMCD) requests carried CMCD, all well-formed and conformant")
        }
        var problems = session.findings.prefix(2).map { "request \($0.record): \($0.findings.first ?? "")" }
        problems += session.conformance.issues.prefix(3).map(\.description)
        return Finding(passed: false, observed: problems.joined(separator: "; "), evidence: session.findings.prefix(5).map(\.record))
    }

    static func bufferWords(_ milliseconds: Int) -> String { String(format: "%.1f s", Double(milliseconds) / 1000) }
}
