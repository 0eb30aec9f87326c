import Foundation
import Records

extension PlayerMatrix {
    /// The matrix page. Each cell links to its section of the row's evidence page
    /// (`<pagesFolder>/<scenario>.md#<player>`).
    public func markdown(pagesFolder: String) -> String {
        var lines = ["# Player conformance matrix", ""]
        lines.append(Self.markdownEscape(provenance).replacingOccurrences(of: "hlschaos matrix", with: "`hlschaos matrix`")
            .replacingOccurrences(of: "--from-json", with: "`--from-json`"))
        lines.append("")
        lines.append("Players: " + columns.map { "**\($0.player)** (\($0.shortVersion))" }.joined(separator: "; ") + ".")
        lines.append("")
        let c = counts
        lines.append("Each row is a preset (an error path, with the document that says what a player should do); each cell is what the player did, read off the proxy's records and the player's own report. **✓** every documented expectation held, **✗** the player departs from what the documents say (the cell's page shows which expectation and the records), **·** nothing to judge (no documented expectation, or the player never requested what the preset faults), **!** could not run. \(c.conforms) ✓, \(c.departs) ✗, \(c.unchecked) ·, \(c.couldNotRun) !.")
        lines.append("")
        lines += table(errorPathRows, heading: "error path", columns: columns, pagesFolder: pagesFolder) { cell in
            (Self.short(cell.words, 70), "")
        }
        let link = linkRows
        if !link.isEmpty {
            lines += ["## Adaptation to the link", "", Self.linkSectionText, ""]
            lines += table(link, heading: "link", columns: columns(playing: link), pagesFolder: pagesFolder) { cell in
                guard let figures = cell.figures else { return (Self.short(cell.words, 70), "") }
                return (figures, cell.outcome == "-" ? "" : "<br><sub>player: \(Self.markdownEscape(Self.short(cell.outcome, 70)))</sub>")
            }
        }
        lines.append("Regenerate with `hlschaos matrix --out DIR` (about \(Int((cells.map(\.seconds).reduce(0, +) / 60).rounded())) player-minutes; it runs several players at once), then copy `DIR/player-matrix.md` and `DIR/player-matrix/` here. `DIR/player-matrix.html` is the same matrix on one page, and `DIR/evidence/` has every run's records, HAR and player log.")
        return lines.joined(separator: "\n") + "\n"
    }

    /// What the link section's cells say, above its table (plain text: the HTML page has it too).
    static let linkSectionText = "The link-* presets put the session on a link (docs/link.md): a capacity over time, latency, loss-like stalls or outages. Each cell gives the player's adaptation figures (docs/link.md, Judging adaptation): how long after the link fell below the variant in use it went down, how long after the link recovered it came back up, its stalls as the player reported them, the share of the link it used, its switches, and the time it spent on a variant the link could not carry; then what the player's run came to."

    /// A table of `rows` × `columns`, each cell its mark and `text`'s words linking to its section of
    /// the row's evidence page (`<pagesFolder>/<scenario>.md#<player>`), then `text`'s markup after
    /// the link; none when there is no row.
    private func table(_ rows: [Row], heading: String, columns: [Column], pagesFolder: String,
                       text: (Cell) -> (words: String, after: String)) -> [String] {
        guard !rows.isEmpty else { return [] }
        var lines = ["| \(heading) | " + columns.map(\.player).joined(separator: " | ") + " |"]
        lines.append("|---|" + String(repeating: "---|", count: columns.count))
        for row in rows {
            let cellsText = columns.map { column in
                cell(scenario: row.scenario, player: column.player).map { cell in
                    let (words, after) = text(cell)
                    return "\(Self.symbol(cell.mark)) [\(Self.markdownEscape(words))](\(pagesFolder)/\(row.scenario).md#\(column.player))\(after)"
                } ?? ""
            }
            let reference = row.reference.map { "<br><sub>\(Self.markdownEscape(Self.short($0, 90)))</sub>" } ?? ""
            lines.append("| **\(row.scenario)** (\(row.stream))\(reference) | " + cellsText.joined(separator: " | ") + " |")
        }
        return lines + [""]
    }

    /// One page per row: the preset, then per player (anchor = player name) the verdict on each
    /// documented expectation, the records behind a departure and the end of the player's log.
    public func evidencePages() -> [(name: String, markdown: String)] {
        rows.map { row in
            var lines = ["# \(row.scenario)", ""]
            if let description = row.description { lines += [description, ""] }
            if let reference = row.reference { lines += ["Reference: \(reference)", ""] }
            lines += ["Played on the demo's \(row.stream) stream. [Back to the matrix](../player-matrix.md)", ""]
            if runs.count > 1, let run = runs.first(where: { $0.presets.contains(row.scenario) }) {
                lines += ["From the run of \(Self.minute(run.generated)) on \(run.machine).", ""]
            }
            for column in columns {
                guard let cell = cell(scenario: row.scenario, player: column.player) else { continue }
                lines.append("<a id=\"\(column.player)\"></a>")
                lines.append("## \(column.player) \(Self.symbol(cell.mark))")
                lines.append("")
                lines.append("\(cell.words). Player: \(cell.outcome). \(String(format: "%.0f", cell.seconds)) s.")
                lines.append("")
                for check in cell.checks { lines.append("- \(Self.markdownEscape(check))") }
                if !cell.checks.isEmpty { lines.append("") }
                if !cell.records.isEmpty {
                    lines += ["Records behind the departure:", "", "```"] + cell.records.prefix(15) + ["```", ""]
                }
                if !cell.logTail.isEmpty {
                    lines += ["End of the player's log:", "", "```"] + cell.logTail.map { Self.short($0, 200) } + ["```", ""]
                }
            }
            return (row.scenario, lines.joined(separator: "\n"))
        }
    }

    /// Where the matrix comes from: "Generated by hlschaos matrix on DATE, MACHINE.", or the runs
    /// it was merged from.
    var provenance: String {
        let runs = self.runs
        guard runs.count > 1 else { return "Generated by hlschaos matrix on \(RecordTime.iso8601(generated).prefix(10)), \(machine)." }
        let oneMachine = Set(runs.map(\.machine)).count == 1
        let each = runs.map { run in
            "\(Self.minute(run.generated))\(oneMachine ? "" : ", " + run.machine) (\(run.presets.count) preset\(run.presets.count == 1 ? "" : "s"))"
        }
        return "Generated by hlschaos matrix in \(runs.count) runs\(oneMachine ? " on " + runs[0].machine : "") merged with --from-json: "
            + each.joined(separator: "; ") + ". Each row's page says which run it comes from."
    }

    /// "2026-11-27 05:28 UTC": when a run began, to tell runs of one day apart.
    static func minute(_ date: Date) -> String {
        let text = RecordTime.iso8601(date)
        return text.prefix(10) + " " + text.dropFirst(11).prefix(5) + " UTC"
    }

    static func short(_ text: String, _ limit: Int) -> String {
        text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
    }

    static func markdownEscape(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
            .replacingOccurrences(of: "[", with: "\\[").replacingOccurrences(of: "]", with: "\\]")
    }
}
