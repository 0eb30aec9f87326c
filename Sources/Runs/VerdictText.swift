import Foundation
import Records

/// What `hlschaos run` prints per cell and at the end: PASS/FAIL with the observed reaction, and for
/// a failure every expectation that did not hold, what was observed, and the records it rests on.
public enum VerdictText {
    public static func cell(_ result: CellResult, colour: Bool) -> String {
        let seconds = String(format: "%.1f s", result.seconds)
        switch result.status {
        case .couldNotRun:
            return paint("ERROR", .red, colour) + "  \(result.name): \(result.problem ?? "could not run")"
        case .notApplicable:
            return "N/A    \(result.name)  (\(seconds))  nothing faulted, nothing judged: \(result.problem ?? "the fault was not reached")"
        case .passed:
            let count = result.verdict?.results.count ?? 0
            let held = count == 0 ? "no expectations" : count == 1 ? "1 expectation holds" : "\(count) expectations hold"
            return paint("PASS ", .green, colour) + "  \(result.name)  (\(seconds))  \(held); \(result.reactionWords)"
        case .failed:
            var lines = [paint("FAIL ", .red, colour) + "  \(result.name)  (\(seconds))  \(result.reactionWords)"]
            for failure in result.verdict?.results.filter({ !$0.passed }) ?? [] {
                let kind = failure.documented ? "documented" : "\(result.player)"
                lines.append("       ✗ [\(kind)] \(failure.expectation)")
                lines.append("         observed: \(failure.observed)")
                let cited = result.evidenceRecords.filter { failure.evidence.contains($0.id) }
                for record in cited.prefix(8) { lines.append("         " + RecordLine.plain(record)) }
                if cited.count > 8 { lines.append("         … \(cited.count - 8) more record\(cited.count == 9 ? "" : "s") in the evidence") }
            }
            if result.faultedRequests == 0 {
                lines.append("       note: no request was faulted: the player never requested what the rules target")
            }
            if let report = result.report {
                lines.append("       player: \(report.summaryText)\(report.errors.first.map { "; first error: \($0.kind)\($0.code.map { " (\($0))" } ?? "")" } ?? "")")
            }
            if let evidence = result.evidence { lines.append("       evidence: \(evidence)") }
            lines.append("       replay by hand: \(result.url)")
            return lines.joined(separator: "\n")
        }
    }

    public static func summary(_ results: [CellResult], seconds: Double) -> String {
        let passed = results.filter { $0.status == .passed }.count
        let failed = results.filter { $0.status == .failed }.count
        let errors = results.filter { $0.status == .couldNotRun }.count
        let notApplicable = results.filter { $0.status == .notApplicable }.count
        return "\(passed) passed, \(failed) failed, \(errors) could not run"
            + (notApplicable > 0 ? ", \(notApplicable) not applicable" : "")
            + " (\(results.count) run\(results.count == 1 ? "" : "s"), \(String(format: "%.0f", seconds)) s)"
    }

    private enum Colour: String { case red = "31", green = "32" }

    private static func paint(_ text: String, _ colour: Colour, _ enabled: Bool) -> String {
        enabled ? "\u{1B}[\(colour.rawValue)m\(text)\u{1B}[0m" : text
    }
}
