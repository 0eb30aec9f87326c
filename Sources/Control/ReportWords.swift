import Foundation
import Records

/// The reaction report as `GET /api/sessions/{id}/report` answers it: the report's fields, and
/// `words`, its findings said for people. The dashboard shows these words as they are; scripts
/// read the fields. The resources are named by `ReactionReport.Resource.words`, the sentence by the
/// report's own `verdict`; what is said here is the list under it.
struct ReportAnswer: Encodable {
    var report: ReactionReport
    var words: ReportWords

    init(_ report: ReactionReport) {
        self.report = report
        words = ReportWords(report)
    }

    enum Key: String, CodingKey { case words }

    func encode(to encoder: Encoder) throws {
        try report.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(words, forKey: .words)
    }
}

struct ReportWords: Encodable, Equatable {
    /// The outcome in a word or two: "clean", "kept playing", "recovered", "still failing", "gave up".
    var outcome: String
    var findings: [Finding]

    /// One line of the report: "first fault" — "segment 8 of variant 2 → 503", on records 7.
    struct Finding: Encodable, Equatable {
        enum Tone: String, Encodable { case bad, note }
        var label: String
        var words: String
        /// When it happened, for a reader to place it on the session's timeline.
        var time: Date?
        var records: [UInt64] = []
        var tone: Tone?
    }

    init(_ report: ReactionReport) {
        outcome = Self.outcomeWords[report.outcome] ?? report.outcome.rawValue
        findings = Self.incidents(report) + Self.reactions(report) + Self.cadence(report) + Self.player(report) + Self.ending(report)
    }

    static let outcomeWords: [ReactionReport.Outcome: String] = [
        .clean: "clean", .continued: "kept playing", .recovered: "recovered", .unrecovered: "still failing", .gaveUp: "gave up",
    ]

    static func incidents(_ report: ReactionReport) -> [Finding] {
        var found: [Finding] = []
        if let fault = report.firstFault { found.append(incident("first fault", fault)) }
        if let failure = report.firstFailure, failure.record != report.firstFault?.record {
            found.append(incident("first failure", failure))
        }
        if let reaction = report.firstReaction {
            let kind = reaction.kind == .gaveUp ? "gave up" : reaction.kind.rawValue
            found.append(Finding(label: "first reaction", words: "\(kind) after \(seconds(reaction.after))", time: reaction.time, records: reaction.records))
        }
        return found
    }

    /// "segment 8 of variant 2 → 503", "segment 3 of variant 1 → 200 · delay 2.0s".
    static func incident(_ label: String, _ incident: ReactionReport.Incident) -> Finding {
        var words = "\(incident.resource.words) → \(incident.status.map(String.init) ?? "no response")"
        if incident.ending != .complete { words += " (\(incident.ending.rawValue))" }
        let actions = actionWords(incident)
        if !actions.isEmpty { words += " · " + actions.joined(separator: ", ") }
        return Finding(label: label, words: words, time: incident.time, records: [incident.record])
    }

    /// The words of an incident's actions but the status it answered (the finding says that already).
    static func actionWords(_ incident: ReactionReport.Incident) -> [String] {
        incident.actions.compactMap { action in
            if case .status(let status) = action.kind, status == incident.status { return nil }
            return action.words
        }
    }

    static func reactions(_ report: ReactionReport) -> [Finding] {
        var found = switches(report.switches).map { [$0] } ?? []
        for series in report.retries.prefix(3) {
            let statuses = series.statuses.map { $0.map(String.init) ?? "—" }.joined(separator: " ")
            let spacing = series.spacing.isEmpty ? "" : ", " + ReportWords.spacing(series.spacing)
            found.append(Finding(
                label: "retried", words: "\(series.resource.words) \(times(series.retries))\(spacing) [\(statuses)]"
                    + " → \(series.succeeded ? "succeeded" : "never succeeded")", records: series.records))
        }
        if report.retries.count > 3 {
            let more = report.retries.count - 3
            found.append(Finding(label: "", words: "… and \(more) more retried resource\(more == 1 ? "" : "s")"))
        }
        for failover in report.failovers {
            found.append(Finding(
                label: "failover", words: "variant \(failover.variant) to its backup copy after \(seconds(failover.after))"
                    + (failover.succeeded ? "" : " (failed too)"), time: failover.time, records: failover.records))
        }
        for move in report.steering?.moves ?? [] {
            found.append(Finding(label: "pathway", words: "moved from \(move.from) to \(move.to)", time: move.time, records: move.records))
        }
        return found
    }

    /// "2 switches": "down to variant 1, then up to variant 2"; the first three and the last two of many.
    static func switches(_ switches: [ReactionReport.VariantSwitch]) -> Finding? {
        guard let first = switches.first else { return nil }
        let all = switches.map(Optional.some)
        let shown = switches.count > 6 ? Array(all.prefix(3)) + [nil] + Array(all.suffix(2)) : all
        let words = shown.map { change in
            change.map { "\($0.direction.rawValue) to variant \($0.to)" + ($0.basis == .index ? " (by index)" : "") } ?? "…"
        }
        return Finding(
            label: "\(switches.count) switch\(switches.count == 1 ? "" : "es")", words: words.joined(separator: ", then "),
            time: first.time, records: shown.compactMap { $0?.records.last })
    }

    static func cadence(_ report: ReactionReport) -> [Finding] {
        var found: [Finding] = []
        if let steering = report.steering, !steering.reloads.isEmpty {
            var words = "manifest reloaded \(times(steering.reloads.count))"
            if let interval = steering.medianInterval { words += ", every \(seconds(interval))" }
            if steering.failedReloads > 0 { words += " (\(steering.failedReloads) failed)" }
            found.append(Finding(label: "steering", words: words, records: Array(steering.reloads.suffix(5)),
                                 tone: steering.failedReloads > 0 ? .bad : nil))
        }
        for skip in report.skipped {
            let which = skip.from == skip.to ? "segment \(skip.from)" : "segments \(skip.from)–\(skip.to)"
            found.append(Finding(label: "skipped", words: which + (skip.variant.map { " (then variant \($0))" } ?? ""),
                                 time: skip.time, records: skip.records))
        }
        let judged = report.reloads.filter { $0.pace != .notJudged }
        if let first = judged.first {
            let pace: [ReactionReport.ReloadCadence.Pace: String] = [.withinBounds: "within bounds", .tooFast: "too fast", .tooSlow: "too slow"]
            let each = judged.map { "\(owner($0)) every \(seconds($0.medianInterval)) \(pace[$0.pace] ?? $0.pace.rawValue)" }
            found.append(Finding(
                label: "reloads", words: each.joined(separator: " · ") + " (target \(seconds(first.targetDuration ?? 0)))",
                tone: judged.contains { $0.pace != .withinBounds } ? .bad : nil))
        }
        return found
    }

    static func ending(_ report: ReactionReport) -> [Finding] {
        var found: [Finding] = []
        if let stop = report.stop {
            let kind = stop.kind == .gaveUp ? "gave up" : stop.kind.rawValue
            let after = stop.lastSegment.map { " after \($0.words)" } ?? ""
            found.append(Finding(label: "stop", words: "\(kind)\(after), idle \(seconds(stop.idle))", time: stop.time, records: stop.records))
        }
        if !report.failures.isEmpty {
            let count = report.failures.count
            found.append(Finding(label: "failed", words: "\(count) request\(count == 1 ? "" : "s")", records: report.failures))
        }
        return found + report.notes.map { Finding(label: "", words: $0, tone: .note) }
    }

    /// Whose playlist: "variant 2", "rendition 1".
    static func owner(_ cadence: ReactionReport.ReloadCadence) -> String {
        cadence.variant.map { "variant \($0)" } ?? cadence.rendition.map { "rendition \($0)" } ?? "an I-frame variant"
    }

    // The numbers as the verdict writes them (ReactionReport+Verdict.swift keeps its own copies internal).

    /// "once", "twice", "three times", "12 times".
    static func times(_ count: Int) -> String {
        [1: "once", 2: "twice", 3: "three times", 4: "four times", 5: "five times"][count] ?? "\(count) times"
    }

    /// "1.0 s apart", "1.0–4.0 s apart".
    static func spacing(_ gaps: [Double]) -> String {
        guard let low = gaps.min(), let high = gaps.max() else { return "" }
        if high - low < 0.2 { return "\(number(gaps.reduce(0, +) / Double(gaps.count))) s apart" }
        return "\(number(low))–\(number(high)) s apart"
    }

    static func seconds(_ value: Double) -> String { "\(number(value)) s" }

    static func number(_ value: Double) -> String { String(format: "%.1f", value) }
}
