import Foundation

/// The report in one line, e.g. "Retried segment 42 of variant 2 three times (1.0 s apart), then
/// switched down to variant 1 after 3.2 s; recovered."
extension ReactionReport {
    static func verdict(_ report: ReactionReport, records byID: [UInt64: RequestRecord]) -> String {
        guard report.requests > 0 else { return "No requests." }
        var sentences: [String] = []
        if let trigger = report.firstFault ?? report.firstFailure {
            sentences.append(reaction(to: trigger, report, records: byID))
        } else {
            var sentence = "Played without trouble"
            if let change = report.switches.last {
                sentence += "; switched \(times(report.switches.count))"
                    + ", last \(change.direction.rawValue) to variant \(change.to)"
            }
            if let move = report.steering?.moves.last {
                sentence += "; moved from pathway \(move.from) to \(move.to)"
            }
            sentences.append(sentence)
        }
        if let stop = report.stop, stop.kind != .gaveUp {
            let last = stop.lastSegment.map { " (\($0.words))" } ?? ""
            sentences.append(stop.kind == .finished
                ? "Finished at the last segment\(last)"
                : "Stopped after the last segment it requested\(last)")
        }
        if let steering = report.steering, !steering.reloads.isEmpty {
            var sentence = "Reloaded the steering manifest \(times(steering.reloads.count))"
            if let interval = steering.medianInterval { sentence += " (every \(seconds(interval)))" }
            if steering.failedReloads > 0 { sentence += "; \(steering.failedReloads) failed" }
            sentences.append(sentence)
        }
        for skip in report.skipped {
            let which = skip.from == skip.to ? "segment \(skip.from)" : "segments \(skip.from)–\(skip.to)"
            sentences.append("Skipped \(which)")
        }
        for cadence in report.reloads {
            guard let lowLatency = cadence.lowLatency, let held = lowLatency.longestHeld,
                  let target = cadence.targetDuration, held > 3 * target else { continue }
            sentences.append("A blocking reload of the playlist of \(cadence.playlistOwner) took \(seconds(held)),"
                + " more than three target durations (\(seconds(3 * target)); rfc8216bis §6.2.5.2)")
        }
        for cadence in report.reloads where cadence.pace == .tooFast || cadence.pace == .tooSlow {
            sentences.append("Reloaded the playlist of \(cadence.playlistOwner) too \(cadence.pace == .tooFast ? "fast" : "slow")"
                + " (every \(seconds(cadence.medianInterval)), target duration \(seconds(cadence.targetDuration ?? 0)))")
        }
        if let player = report.player { sentences.append(contentsOf: playerSentences(player)) }
        return sentences.map { $0 + "." }.joined(separator: " ")
    }

    /// What the player did after the first fault (or failure), and how it ended.
    static func reaction(to trigger: Incident, _ report: ReactionReport, records byID: [UInt64: RequestRecord]) -> String {
        func time(_ id: UInt64) -> Date { byID[id]?.time ?? .distantPast }
        var clauses: [(time: Date, text: String)] = []
        // Series that began with the trigger or later.
        let afterTrigger = report.retries.filter { time($0.records[0]) >= trigger.time }
        if let series = afterTrigger.first {
            var text = "retried \(series.resource.words) \(times(series.retries)) (\(spacing(series.spacing)))"
            if afterTrigger.count > 1 {
                text += " and \(afterTrigger.count - 1) other resource\(afterTrigger.count == 2 ? "" : "s")"
            }
            clauses.append((time(series.records[1]), text))
        }
        func since(_ time: Date) -> String { seconds(max(0, time.timeIntervalSince(trigger.time))) }
        if let failover = report.failovers.first(where: { $0.time >= trigger.time }) {
            let text = "failed over to the backup copy of variant \(failover.variant) after \(since(failover.time))"
            clauses.append((failover.time, text + (failover.succeeded ? "" : " (which failed too)")))
        }
        for move in report.steering?.moves ?? [] where move.time >= trigger.time {
            clauses.append((move.time, "moved from pathway \(move.from) to \(move.to) after \(since(move.time))"))
        }
        // The first switch after the trigger, and the last one when there were more.
        // A move to another content-steering pathway is told as such, not as the switch to its twin variant.
        let moveEnds = Set(report.steering?.moves.compactMap(\.records.last) ?? [])
        let switches = report.switches.filter {
            $0.records.last.map(time) ?? .distantPast > trigger.time && !moveEnds.contains($0.records.last ?? 0)
        }
        for change in [switches.first, switches.count > 1 ? switches.last : nil].compactMap({ $0 }) {
            clauses.append((change.time, "switched \(change.direction.rawValue) to variant \(change.to) after \(since(change.time))"))
        }
        clauses.sort { $0.time < $1.time }

        let giveUpAfter = report.stop.map { max(0, $0.time.timeIntervalSince(trigger.time)) } ?? 0
        let giveUpWhen = giveUpAfter < 0.05 ? "right after" : "\(seconds(giveUpAfter)) after"
        if clauses.isEmpty {
            switch report.outcome {
            case .gaveUp: return "Gave up \(giveUpWhen) \(trigger.words) without retrying"
            case .continued: return "Kept playing after \(trigger.words), without retrying or switching"
            case .recovered: return "No retry, switch or failover after \(trigger.words); recovered"
            case .unrecovered: return "No retry, switch or failover after \(trigger.words); still failing"
            case .clean: return "Played without trouble"
            }
        }
        var text = clauses.map(\.text).joined(separator: ", then ")
        text = text.prefix(1).uppercased() + text.dropFirst()
        switch report.outcome {
        case .gaveUp: text += "; gave up \(giveUpWhen) \(trigger.words)"
        case .continued: text += "; kept playing"
        case .recovered: text += "; recovered"
        case .unrecovered: text += "; still failing"
        case .clean: break
        }
        return text
    }

    /// "once", "twice", "three times", "12 times".
    static func times(_ count: Int) -> String {
        switch count {
        case 1: "once"
        case 2: "twice"
        case 3: "three times"
        case 4: "four times"
        case 5: "five times"
        default: "\(count) times"
        }
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

extension ReactionReport.ReloadCadence {
    /// Whose playlist it is, in the verdict's words: "variant 2", "rendition 1".
    var playlistOwner: String {
        variant.map { "variant \($0)" } ?? rendition.map { "rendition \($0)" } ?? "an I-frame variant"
    }
}
