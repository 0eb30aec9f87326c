import Foundation
import Markup
import Records

/// JUnit XML as CI systems read it (GitHub Actions reporters, GitLab, Jenkins): one `testsuite` per
/// scenario, one `testcase` per scenario × player; a failing verdict is a `failure` whose message
/// names the first expectation that did not hold and whose text carries all of them with the
/// observed behaviour and the records; a player that could not run is an `error`.
public enum JUnitWriter {
    public static func xml(_ results: [CellResult], seconds: Double, timestamp: Date) -> String {
        var byScenario: [(String, [CellResult])] = []
        for result in results {
            if let index = byScenario.firstIndex(where: { $0.0 == result.scenario }) {
                byScenario[index].1.append(result)
            } else {
                byScenario.append((result.scenario, [result]))
            }
        }
        let failures = results.filter { $0.status == .failed }.count
        let errors = results.filter { $0.status == .couldNotRun }.count
        var xml = [#"<?xml version="1.0" encoding="UTF-8"?>"#]
        xml.append(#"<testsuites name="hlschaos run" tests="\#(results.count)" failures="\#(failures)" errors="\#(errors)" time="\#(format(seconds))">"#)
        for (scenario, cells) in byScenario {
            let suiteFailures = cells.filter { $0.status == .failed }.count
            let suiteErrors = cells.filter { $0.status == .couldNotRun }.count
            let time = cells.map(\.seconds).reduce(0, +)
            xml.append(#"  <testsuite name="\#(Markup.escape(scenario))" tests="\#(cells.count)" failures="\#(suiteFailures)" errors="\#(suiteErrors)" time="\#(format(time))" timestamp="\#(RecordTime.iso8601(timestamp))">"#)
            for cell in cells {
                xml.append(#"    <testcase classname="hlschaos.\#(Markup.escape(scenario))" name="\#(Markup.escape(cell.player))" time="\#(format(cell.seconds))">"#)
                switch cell.status {
                case .passed: break
                case .couldNotRun:
                    xml.append(#"      <error message="\#(Markup.escape(cell.problem ?? "could not run"))" type="couldNotRun"/>"#)
                case .notApplicable:
                    xml.append(#"      <skipped message="\#(Markup.escape(cell.problem ?? "not applicable"))"/>"#)
                case .failed:
                    let failed = cell.verdict?.results.filter { !$0.passed } ?? []
                    let message = failed.first.map { "\($0.expectation): observed \($0.observed)" } ?? "failed"
                    xml.append(#"      <failure message="\#(Markup.escape(message))" type="expectation">\#(Markup.escape(failureText(cell)))</failure>"#)
                }
                xml.append("      <system-out>\(Markup.escape(systemOut(cell)))</system-out>")
                xml.append("    </testcase>")
            }
            xml.append("  </testsuite>")
        }
        xml.append("</testsuites>")
        return xml.joined(separator: "\n") + "\n"
    }

    private static func failureText(_ cell: CellResult) -> String {
        var lines: [String] = []
        for result in cell.verdict?.results.filter({ !$0.passed }) ?? [] {
            lines.append("✗ [\(result.documented ? "documented" : cell.player)] \(result.expectation)")
            lines.append("  observed: \(result.observed)")
            for record in cell.evidenceRecords where result.evidence.contains(record.id) {
                lines.append("  " + RecordLine.plain(record))
            }
        }
        lines.append("player: \(cell.report?.summaryText ?? "-")")
        if let evidence = cell.evidence { lines.append("evidence: \(evidence)") }
        return lines.joined(separator: "\n")
    }

    private static func systemOut(_ cell: CellResult) -> String {
        var lines = ["url: \(cell.url)", "reaction: \(cell.reactionWords)", "player: \(cell.report?.summaryText ?? "-") (\(cell.playerVersion ?? "version unknown"))"]
        lines.append("requests: \(cell.requests), faulted: \(cell.faultedRequests)")
        for result in cell.verdict?.results ?? [] {
            lines.append("\(result.passed ? "✓" : "✗") \(result.expectation) — \(result.observed)")
        }
        return lines.joined(separator: "\n")
    }

    private static func format(_ seconds: Double) -> String { String(format: "%.3f", seconds) }
}
