import Foundation
import HAR
import Players
import Records

/// The files a cell leaves behind, so that a failing verdict can be checked by hand: every record
/// (JSON Lines and a HAR that Chrome devtools or Charles opens), the player's log and report, the
/// reaction report and the verdict.
enum Evidence {
    static func write(to directory: URL, records: [RequestRecord], result: CellResult, baseURL: String, creatorVersion: String) {
        let encoder = RecordTime.jsonEncoder()
        var lines = Data()
        for record in records {
            if let line = try? encoder.encode(record) {
                lines.append(line)
                lines.append(0x0A)
            }
        }
        save(lines, "records.jsonl", in: directory)
        save(HARDocument.data(records: records, baseURL: baseURL, creatorVersion: creatorVersion), "session.har", in: directory)
        let pretty = RecordTime.jsonEncoder(pretty: true)
        if var report = result.report {
            save(Data(report.log.utf8), "player.log", in: directory)
            report.log = "(in player.log)"
            if let data = try? pretty.encode(report) { save(data, "player.json", in: directory) }
        }
        if let reaction = result.reaction, let data = try? pretty.encode(reaction) { save(data, "reaction.json", in: directory) }
        if let verdict = result.verdict, let data = try? pretty.encode(verdict) { save(data, "verdict.json", in: directory) }
    }

    private static func save(_ data: Data, _ name: String, in directory: URL) {
        try? data.write(to: directory.appendingPathComponent(name), options: .atomic)
    }
}
