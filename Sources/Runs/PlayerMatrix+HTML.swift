import Markup
import Records

extension PlayerMatrix {
    /// The whole matrix on one self-contained page; a cell opens to its checks, records and log.
    /// Rows played on a link get a table of their own whose cells show the adaptation figures.
    public func html() -> String {
        var body = "<h1>Player conformance matrix</h1>"
        body += "<p>\(Markup.escape(provenance))<br>"
        body += "Players: " + columns.map { "<b>\(Markup.escape($0.player))</b> <span class=\"muted\">\(Markup.escape($0.shortVersion))</span>" }.joined(separator: "; ")
        let c = counts
        body += "</p><p>✓ every documented expectation held · ✗ departs from the documents · <span class=\"muted\">·</span> nothing to judge (nothing documented, or the fault was never reached) · ! could not run — \(c.conforms) ✓, \(c.departs) ✗, \(c.unchecked) ·, \(c.couldNotRun) !</p>"
        body += htmlTable(errorPathRows, heading: "error path", columns: columns) { $0.words }
        let link = linkRows
        if !link.isEmpty {
            body += "<h2>Adaptation to the link</h2><p>\(Markup.escape(Self.linkSectionText))</p>"
            body += htmlTable(link, heading: "link", columns: columns(playing: link)) { $0.figures ?? $0.words }
        }
        return HTMLPage.page(title: "hlschaos player matrix", body: body)
    }

    /// A table of `rows` × `columns`: each cell its mark and `summary`, opening to the reaction,
    /// the checks, the player's outcome, the records behind a departure and the log.
    private func htmlTable(_ rows: [Row], heading: String, columns: [Column], summary: (Cell) -> String) -> String {
        guard !rows.isEmpty else { return "" }
        var body = "<table><thead><tr><th>\(Markup.escape(heading))</th>" + columns.map { "<th>\(Markup.escape($0.player))</th>" }.joined() + "</tr></thead><tbody>"
        for row in rows {
            body += "<tr><td><b>\(Markup.escape(row.scenario))</b> <span class=\"muted\">(\(Markup.escape(row.stream)))</span><br><span class=\"muted\">\(Markup.escape(row.reference ?? ""))</span></td>"
            for column in columns {
                guard let cell = cell(scenario: row.scenario, player: column.player) else {
                    body += "<td></td>"
                    continue
                }
                let style = cell.mark == .departs ? "cell-departs" : cell.mark == .conforms ? "cell-conforms" : ""
                let shown = summary(cell)
                var details = shown == cell.words ? "" : "<div>\(Markup.escape(cell.words))</div>"
                details += "<ul>" + cell.checks.map { "<li>\(Markup.escape($0))</li>" }.joined() + "</ul>"
                details += "<div class=\"muted\">player: \(Markup.escape(cell.outcome))</div>"
                if !cell.records.isEmpty { details += "<pre>\(Markup.escape(cell.records.prefix(15).joined(separator: "\n")))</pre>" }
                if !cell.logTail.isEmpty { details += "<pre class=\"muted\">\(Markup.escape(cell.logTail.joined(separator: "\n")))</pre>" }
                if let evidence = cell.evidence { details += "<a href=\"\(Markup.escape(evidence))/\">evidence files</a>" }
                body += "<td class=\"\(style)\"><details><summary>\(Self.symbol(cell.mark)) \(Markup.escape(shown))</summary>\(details)</details></td>"
            }
            body += "</tr>"
        }
        return body + "</tbody></table>"
    }
}
