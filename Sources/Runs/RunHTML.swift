import Markup
import Records

/// The `--html` page of a run: one row per scenario × player with the verdict, the observed
/// reaction, every expectation with what was observed, and the records behind a failure.
public enum RunHTML {
    public static func page(_ results: [CellResult], title: String, summary: String) -> String {
        var rows: [String] = []
        for cell in results {
            let status: String
            switch cell.status {
            case .passed: status = #"<span class="pass">PASS</span>"#
            case .failed: status = #"<span class="fail">FAIL</span>"#
            case .couldNotRun: status = #"<span class="error">ERROR</span>"#
            case .notApplicable: status = #"<span class="muted">N/A</span>"#
            }
            var expectations = ""
            for result in cell.verdict?.results ?? [] {
                let mark = result.passed ? #"<span class="pass">✓</span>"# : #"<span class="fail">✗</span>"#
                let origin = result.documented ? "documented" : cell.player
                expectations += "<li>\(mark) \(Markup.escape(result.expectation)) <span class=\"muted\">[\(origin)]</span><br>"
                    + "<span class=\"muted\">observed:</span> \(Markup.escape(result.observed))</li>"
            }
            if cell.verdict?.results.isEmpty ?? true { expectations = "<li class=\"muted\">no expectations</li>" }
            let records = cell.evidenceRecords.map { Markup.escape(RecordLine.plain($0)) }.joined(separator: "\n")
            let evidence = cell.evidence.map { "<a href=\"\(Markup.escape($0))/\">evidence</a>" } ?? ""
            rows.append("""
                <tr><td>\(status)</td><td><b>\(Markup.escape(cell.scenario))</b><br><span class="muted">\(Markup.escape(cell.reference ?? ""))</span></td>
                <td>\(Markup.escape(cell.player))<br><span class="muted">\(Markup.escape(cell.playerVersion ?? ""))</span></td>
                <td>\(Markup.escape(cell.problem ?? cell.reactionWords))<br><span class="muted">player: \(Markup.escape(cell.report?.summaryText ?? "-"))</span></td>
                <td><ul>\(expectations)</ul>\(records.isEmpty ? "" : "<details><summary>records</summary><pre>\(records)</pre></details>")</td>
                <td>\(String(format: "%.1f s", cell.seconds))<br>\(evidence)</td></tr>
                """)
        }
        let body = """
            <h1>\(Markup.escape(title))</h1>
            <p>\(Markup.escape(summary))</p>
            <table><thead><tr><th>verdict</th><th>scenario</th><th>player</th><th>reaction</th><th>expectations</th><th>time</th></tr></thead>
            <tbody>
            \(rows.joined(separator: "\n"))
            </tbody></table>
            """
        return HTMLPage.page(title: title, body: body)
    }
}
