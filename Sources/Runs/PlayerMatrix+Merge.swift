import Foundation

extension PlayerMatrix {
    /// One `hlschaos matrix` run a merged matrix was made from.
    public struct Source: Sendable, Codable, Equatable {
        public var generated: Date
        public var machine: String
        /// The presets whose rows come from this run.
        public var presets: [String]
    }

    /// The runs this matrix is made of: itself, or what `merged` recorded.
    public var runs: [Source] {
        sources ?? [Source(generated: generated, machine: machine, presets: rows.map(\.scenario))]
    }

    /// Several matrices as one page, so a matrix can be run in parts (a family of presets at a time,
    /// on several machines, or one row again after a fix) and published whole. Rows are sorted by
    /// preset; a preset in a later matrix replaces the row and cells of an earlier one (each
    /// replacement is a note). Columns are the players of every part in order of first appearance;
    /// a player whose version differs between parts shows every version.
    public static func merged(_ parts: [PlayerMatrix]) -> (matrix: PlayerMatrix, notes: [String]) {
        var notes: [String] = []
        var rows: [String: (row: Row, cells: [Cell], part: Int)] = [:]
        var columns: [Column] = []
        var sources: [Source] = []
        for (index, part) in parts.enumerated() {
            for row in part.rows {
                if let earlier = rows[row.scenario] {
                    notes.append("\(row.scenario): the row of matrix \(index + 1) replaces that of matrix \(earlier.part + 1)")
                    for s in sources.indices { sources[s].presets.removeAll { $0 == row.scenario } }
                }
                rows[row.scenario] = (row, part.cells.filter { $0.scenario == row.scenario }, index)
            }
            for column in part.columns {
                guard let at = columns.firstIndex(where: { $0.player == column.player }) else {
                    columns.append(column)
                    continue
                }
                guard let version = column.version else { continue }
                let known = columns[at].version?.components(separatedBy: " / ") ?? []
                if !known.contains(version) { columns[at].version = (known + [version]).joined(separator: " / ") }
            }
            sources += part.runs
        }
        var matrix = PlayerMatrix(results: [], rows: [], players: [], machine: "", generated: parts.map(\.generated).max() ?? Date())
        let ordered = rows.values.sorted { $0.row.scenario < $1.row.scenario }
        matrix.rows = ordered.map(\.row)
        matrix.cells = ordered.flatMap(\.cells)
        matrix.columns = columns
        matrix.sources = sources.filter { !$0.presets.isEmpty }
        var machines: [String] = []
        for source in matrix.runs where !machines.contains(source.machine) { machines.append(source.machine) }
        matrix.machine = machines.joined(separator: "; ")
        return (matrix, notes)
    }
}
