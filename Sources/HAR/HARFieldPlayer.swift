import CMCD
import Foundation
import Records

/// What the field device's player said through CMCD, read off a HAR: each HLS entry's `CMCD=`
/// query argument and `CMCD-*` request headers, parsed as the proxy parses a request's, put in
/// records and read as the proxy reads a session's (`PlayerTimeline`): the buffer it reported, its
/// stalls, its startup. `import-har` writes it as `player.json` and says it in its report.
enum HARFieldPlayer {
    static func timeline(_ log: HARLog, classifications: [HARClassification], origin: Date?) -> PlayerTimeline? {
        var records: [RequestRecord] = []
        for (entry, classification) in zip(log.entries, classifications) where classification.isHLS {
            let headers = entry.requestHeaders.filter { CMCDStrip.isCMCDHeader($0.name) }.map { (name: $0.name, value: $0.value) }
            guard let cmcd = CMCDData.parse(target: entry.url, headers: headers) else { continue }
            var record = RequestRecord(
                id: UInt64(entry.index + 1), time: entry.started ?? origin ?? Date(timeIntervalSince1970: 0), session: "field",
                client: "", method: entry.method, path: entry.url, kind: classification.target?.kind,
                variant: classification.target?.variant, msn: classification.target?.msn, status: entry.status == 0 ? nil : entry.status)
            record.cmcd = RequestRecord.CMCD(cmcd)
            records.append(record)
        }
        guard !records.isEmpty else { return nil }
        return PlayerTimeline.build(records)
    }

    /// One line for the report: how many requests said their buffer, the lowest, the stalls.
    static func words(_ timeline: PlayerTimeline) -> String {
        var parts = ["\(timeline.requestsWithCMCD) request\(timeline.requestsWithCMCD == 1 ? "" : "s") carried CMCD"]
        if let lowest = timeline.lowestBuffer {
            parts.append("lowest buffer \(String(format: "%.1f", Double(lowest.bufferLength) / 1000)) s (entry #\(lowest.record))")
        }
        parts.append(timeline.stalls.isEmpty ? "no stall said" : "\(timeline.stalls.count) stall\(timeline.stalls.count == 1 ? "" : "s") said (\(Set(timeline.stalls.map(\.source)).sorted().joined(separator: ", ")))")
        if timeline.requestsWithFindings > 0 { parts.append("\(timeline.requestsWithFindings) with malformed CMCD") }
        return parts.joined(separator: "; ")
    }
}
