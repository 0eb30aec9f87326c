import Foundation
import Records

/// Real players × documented error paths: for each preset (a row, with the document it comes from)
/// and each player (a column), what the player did in a few words and whether that is what the
/// documents say a conforming player does. Built from the cells of a matrix run (documented
/// expectations only); written as Markdown (with one evidence page per row) and as HTML.
public struct PlayerMatrix: Sendable, Codable {
    public struct Row: Sendable, Codable {
        public var scenario: String
        public var reference: String?
        public var description: String?
        /// The demo stream it was played on ("vod ts", "live ts").
        public var stream: String

        public init(scenario: String, reference: String?, description: String?, stream: String) {
            self.scenario = scenario; self.reference = reference; self.description = description; self.stream = stream
        }
    }

    public struct Column: Sendable, Codable {
        public var player: String
        public var version: String?

        /// The version without the copyright line some players print with it.
        public var shortVersion: String {
            guard let version else { return "version unknown" }
            return version.replacingOccurrences(of: #" Copyright (\(c\)|©) [^,]*"#, with: "", options: .regularExpression)
        }
    }

    public enum Mark: String, Sendable, Codable {
        /// Every documented expectation held.
        case conforms
        /// At least one documented expectation did not hold.
        case departs
        /// The preset documents no expectation this run could check.
        case unchecked
        /// The player never requested what the rules target (e.g. it never reached the variant
        /// they fault): nothing to judge.
        case notReached
        case couldNotRun
    }

    public struct Cell: Sendable, Codable {
        public var scenario: String
        public var player: String
        public var mark: Mark
        /// The observed reaction in a few words.
        public var words: String
        /// How the player adapted to the session's link, in words (`AdaptationFigures.words`:
        /// "went down 2.3 s after the link fell below variant 2; back up …; 1 stall, 9.8 s; used
        /// 76 % of the link; …"); nil when the session had no link.
        public var figures: String?
        /// The player's `PlayerReport.summaryText` ("played; live latency 1.3 s (…)"), or "-".
        public var outcome: String
        /// Each documented expectation and what was observed, ✓ or ✗ first.
        public var checks: [String]
        /// The records behind the departures, one line each.
        public var records: [String]
        /// The last lines of the player's log.
        public var logTail: [String]
        /// The run's evidence directory (relative to the matrix output).
        public var evidence: String?
        public var seconds: Double
    }

    public var generated: Date
    public var machine: String
    public var rows: [Row]
    public var columns: [Column]
    public var cells: [Cell]
    /// The runs a merged matrix was made from (`merged`); nil for the matrix of one run.
    public var sources: [Source]?

    public init(results: [CellResult], rows: [Row], players: [String], machine: String, generated: Date) {
        self.generated = generated
        self.machine = machine
        self.rows = rows
        self.columns = players.map { player in
            Column(player: player, version: results.first { $0.player == player && $0.playerVersion != nil }?.playerVersion)
        }
        self.cells = results.map(Self.cell)
    }

    public func cell(scenario: String, player: String) -> Cell? {
        cells.first { $0.scenario == scenario && $0.player == player }
    }

    /// The rows played on a link (a cell has adaptation figures): the pages show them in a section
    /// of their own, with the figures in each cell. The other rows are the error paths.
    var linkRows: [Row] { rows.filter { row in cells.contains { $0.scenario == row.scenario && $0.figures != nil } } }
    var errorPathRows: [Row] {
        let link = Set(linkRows.map(\.scenario))
        return rows.filter { !link.contains($0.scenario) }
    }

    /// The columns with a cell in `rows` (the link section leaves out the players it did not play).
    func columns(playing rows: [Row]) -> [Column] {
        let scenarios = Set(rows.map(\.scenario))
        return columns.filter { column in cells.contains { scenarios.contains($0.scenario) && $0.player == column.player } }
    }

    /// The matrix cell of one result (also what `matrix` prints as each run ends).
    public static func cell(_ result: CellResult) -> Cell {
        let checks = result.verdict?.results ?? []
        let mark: Mark
        switch result.status {
        case .couldNotRun: mark = .couldNotRun
        case .notApplicable: mark = .notReached
        case _ where result.faultedRequests == 0: mark = .notReached
        case _ where checks.isEmpty: mark = .unchecked
        case .passed: mark = .conforms
        case .failed: mark = .departs
        }
        let cited = Set(checks.filter { !$0.passed }.flatMap(\.evidence))
        return Cell(
            scenario: result.scenario, player: result.player, mark: mark,
            words: result.status == .couldNotRun ? (result.problem ?? "could not run")
                : result.status == .notApplicable ? "fault not reached; " + (result.problem ?? result.reactionWords)
                : result.faultedRequests == 0 ? "fault not reached; " + result.reactionWords : result.reactionWords,
            figures: result.verdict?.adaptation?.words,
            outcome: result.report?.summaryText ?? "-",
            checks: checks.map { "\($0.passed ? "✓" : "✗") \($0.expectation) — observed: \($0.observed)" },
            records: result.evidenceRecords.filter { cited.contains($0.id) }.map(RecordLine.plain),
            logTail: (result.report?.log ?? "").split(separator: "\n", omittingEmptySubsequences: true).suffix(12).map(String.init),
            evidence: result.evidence, seconds: result.seconds)
    }

    /// Counts for the summary line: conforming, departing, unchecked (or fault not reached), could not run.
    public var counts: (conforms: Int, departs: Int, unchecked: Int, couldNotRun: Int) {
        (cells.filter { $0.mark == .conforms }.count, cells.filter { $0.mark == .departs }.count,
         cells.filter { $0.mark == .unchecked || $0.mark == .notReached }.count, cells.filter { $0.mark == .couldNotRun }.count)
    }

    public static func symbol(_ mark: Mark) -> String {
        switch mark {
        case .conforms: "✓"
        case .departs: "✗"
        case .unchecked, .notReached: "·"
        case .couldNotRun: "!"
        }
    }
}
