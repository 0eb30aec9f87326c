import Foundation
import Records

/// `--report FILE.json`: every cell's result (player report, reaction report, verdict with the
/// evidence records), the summary line and where the evidence files are.
public enum RunReportFile {
    struct Document: Encodable {
        var summary: String
        var passed: Bool
        var evidence: String
        var results: [CellResult]
    }

    public static func encode(_ results: [CellResult], summary: String, evidence: String) throws -> Data {
        let document = Document(summary: summary, passed: results.allSatisfy { $0.status == .passed }, evidence: evidence, results: results)
        return try RecordTime.jsonEncoder(pretty: true).encode(document)
    }
}
