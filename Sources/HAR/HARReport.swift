import BundleFormat
import Foundation
import Records

extension HARImport {
    /// What `hlschaos import-har` prints: what was read, each rule and what it reproduces, the
    /// bundle, and what could not be reproduced with why.
    public func report(_ output: HARImportOutput?) -> String {
        var lines: [String] = []
        let hls = classifications.filter(\.isHLS).count
        let others = classifications.count - hls
        var head = "Read \(file): a HAR by \(log.creatorText), \(log.entries.count) entr\(log.entries.count == 1 ? "y" : "ies"): \(hls) HLS, \(others) other"
        if let origin {
            let span = zip(offsets, classifications).filter { $1.isHLS }.map(\.0).max() ?? 0
            head += "; from \(RecordTime.iso8601(origin)) over \(HARFault.secondsText(span)) s"
        }
        lines.append(head + ".")
        lines.append("")
        if rules.isEmpty {
            lines.append("Nothing to reproduce: no HLS request in the HAR failed or was much slower than its peers (no scenario written).")
        } else {
            let place = output?.scenarioPath ?? Self.scenarioFile
            lines.append("Reproduced in \(place) (scenario \"\(scenarioName)\", \(rules.count) rule\(rules.count == 1 ? "" : "s"), valid):")
            for rule in rules {
                lines.append("  \(rule.id)")
                lines.append("    \(rule.description)")
            }
        }
        if let output {
            lines.append("")
            let manifest = output.manifest
            lines.append("Bundle: \(output.bundlePath): \(manifest.exchangeCount) exchange\(manifest.exchangeCount == 1 ? "" : "s"), \(manifest.bodyCount) bod\(manifest.bodyCount == 1 ? "y" : "ies") (\(RecordLine.bytes(manifest.bodyBytes)))\(manifest.redacted ? ", redacted" : "").")
            if let player = output.playerPath, let fieldPlayer {
                lines.append("Player (CMCD): \(player): \(HARFieldPlayer.words(fieldPlayer)).")
            }
            if let link = output.linkPath {
                lines.append("Link: \(link): the throughput the HAR's timings show, second by second (a lower bound of the device's link: docs/recordings.md). Replay with it: hlschaos replay \(output.bundlePath) --link recorded.")
            }
        }
        if !notes.isEmpty {
            lines.append("")
            lines.append("Not reproduced:")
            for note in notes { lines.append("  - \(note)") }
        }
        if let path = output?.scenarioPath {
            lines.append("")
            lines.append("Use it in front of a working origin: hlschaos serve --upstream ORIGIN --rules \(path) (counters and times count from each session's first request),")
            lines.append("or on one session: curl -X PUT -H 'Content-Type: application/json' --data-binary @\(path) http://127.0.0.1:8081/api/sessions/ID/rules")
        }
        if let output, output.manifest.bodyCount > 0 {
            lines.append("Replay the content: hlschaos replay \(output.bundlePath) (its recorded failures recur there by themselves: no need for the scenario on top).")
        }
        return lines.joined(separator: "\n")
    }
}
