import BundleFormat
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
        let said = timeline.saidStalls
        parts.append(said.isEmpty ? "no stall said" : "\(said.count) stall\(said.count == 1 ? "" : "s") said (\(said[0].source))")
        if timeline.requestsWithFindings > 0 { parts.append("\(timeline.requestsWithFindings) with malformed CMCD") }
        return parts.joined(separator: "; ")
    }
}

/// What `hlschaos replay` serves when given an `import-har` directory or its `bundle/`: the bundle,
/// and the field player's timeline (`player.json` of the import) when there is one.
public struct HARReplayTarget: Sendable {
    /// The bundle to replay: the path given, or its `bundle/` when the path is an import directory.
    public var bundle: String
    /// `player.json` of the import, read; nil when there is none.
    public var fieldPlayer: PlayerTimeline?
    public var fieldPlayerPath: String?
    /// Why a `player.json` that is there was not used, naming the file.
    public var problem: String?

    /// `path` is an import directory (no bundle manifest of its own, a `bundle/` that has one), or a
    /// bundle directory named `bundle` inside one: the field player is the import's `player.json`.
    /// Any other path is a bundle without a field player.
    public static func resolve(_ path: String) -> HARReplayTarget {
        let files = FileManager.default
        let url = URL(fileURLWithPath: path)
        let manifest = BundleWriter.manifestFile
        var target = HARReplayTarget(bundle: path)
        let importDirectory: URL
        if !files.fileExists(atPath: url.appendingPathComponent(manifest).path),
           files.fileExists(atPath: url.appendingPathComponent(HARImport.bundleDirectory).appendingPathComponent(manifest).path) {
            target.bundle = (path as NSString).appendingPathComponent(HARImport.bundleDirectory)
            importDirectory = url
        } else if url.standardizedFileURL.lastPathComponent == HARImport.bundleDirectory {
            importDirectory = url.standardizedFileURL.deletingLastPathComponent()
        } else {
            return target
        }
        let file = importDirectory.appendingPathComponent(HARImport.playerFile)
        guard let data = files.contents(atPath: file.path) else { return target }
        target.fieldPlayerPath = file.path
        do {
            target.fieldPlayer = try RecordTime.jsonDecoder().decode(PlayerTimeline.self, from: data)
        } catch {
            target.problem = "\(file.path): is not a field player timeline (what import-har writes as \(HARImport.playerFile)): \(JSONProblem.describe(error)); replaying without it"
        }
        return target
    }

    /// The banner's line: "Field player (CMCD, DIR/player.json): 40 requests carried CMCD; lowest
    /// buffer 0.4 s (entry #12); 2 stalls said (bs); started in 1.2 s. Each session's report shows it
    /// beside its own player." nil when there is no field player.
    public var words: String? {
        if let problem { return "Field player: \(problem)." }
        guard let fieldPlayer, let fieldPlayerPath else { return nil }
        let startup = fieldPlayer.startup.map { "; started in \(String(format: "%.1f", $0.seconds)) s" } ?? ""
        return "Field player (CMCD, \(fieldPlayerPath)): \(HARFieldPlayer.words(fieldPlayer))\(startup). "
            + "Each session's report (GET /api/sessions/{id}/report) shows it beside the replaying player's."
    }
}
