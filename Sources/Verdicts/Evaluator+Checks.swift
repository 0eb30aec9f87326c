import Chaos
import Foundation
import PlayerReports
import Records

/// One function per check; each says what it saw and which records show it.
extension RunFacts {
    // MARK: - proxy side

    /// A switch in `direction` whose first request of the new variant came after the trigger; its
    /// time is the report's (the new variant's playlist or first segment), not before the trigger.
    func switched(_ direction: ReactionReport.VariantSwitch.Direction, within: Duration?) -> Finding {
        let name = direction == .down ? "down-switch" : "up-switch"
        let candidates = reaction.switches.filter { change in
            change.direction == direction && change.records.last.map(isAfterTrigger) == true
        }
        guard let trigger else {
            guard let change = candidates.first else { return Finding(passed: false, observed: "no \(name) (and no fault or failure to time it from)") }
            return Finding(passed: within == nil,
                           observed: "\(name) \(change.from)→\(change.to), but no fault or failure to time it from",
                           evidence: change.records)
        }
        let timed = candidates.map { ($0, max(0, $0.time.timeIntervalSince(trigger.time))) }
        if let (change, after) = timed.first(where: { inTime($0.1, within) }) {
            return Finding(passed: true, observed: "\(name) \(change.from)→\(change.to) \(seconds(after)) after \(triggerWords)",
                           evidence: [trigger.record] + change.records)
        }
        if let (change, after) = timed.first {
            return Finding(passed: false,
                           observed: "the first \(name) (\(change.from)→\(change.to)) came \(seconds(after)) after \(triggerWords)",
                           evidence: [trigger.record] + change.records)
        }
        if direction == .down, let stayed = stayedOffTheFaultedVariant(within: within) { return stayed }
        let others = reaction.switches.filter { $0.records.last.map(isAfterTrigger) == true }
        let otherWords = others.isEmpty ? "" : " (switches seen: "
            + others.prefix(3).map { "\($0.direction.rawValue) \($0.from)→\($0.to)" }.joined(separator: ", ") + ")"
        return Finding(passed: false, observed: "no \(name) after \(triggerWords)\(otherWords)",
                       evidence: [trigger.record] + others.flatMap(\.records))
    }

    /// A down-switch that was not needed: the fault hit a variant the player was not playing (an
    /// up-switch it had started, such as loading that variant's playlist), and its next segment,
    /// in time, came from the variant it was on. It never moved onto the failed variant, which is
    /// what a down-switch away from it would have achieved.
    func stayedOffTheFaultedVariant(within: Duration?) -> Finding? {
        guard let trigger, let faulted = byID[trigger.record]?.variant else { return nil }
        let segments = records.filter { $0.isMediaData && $0.variant != nil }
        guard let before = segments.last(where: { ($0.time, $0.id) < (trigger.time, trigger.record) }),
              let playing = before.variant, playing != faulted,
              let next = segments.first(where: { isAfterTrigger($0.id) }), next.variant == playing,
              inTime(max(0, next.time.timeIntervalSince(trigger.time)), within)
        else { return nil }
        return Finding(
            passed: true,
            observed: "no down-switch needed: variant \(faulted) failed while the player was on variant \(playing) (it had not switched to \(faulted)), and it stayed there",
            evidence: [before.id, trigger.record, next.id])
    }

    /// The largest retry series of a resource whose requests were faulted.
    func retried(_ low: Int?, _ high: Int?) -> Finding {
        let faulted = reaction.retries.filter { series in series.records.contains { byID[$0]?.isFaulted == true } }
        let largest = faulted.max { $0.retries < $1.retries }
        let count = largest?.retries ?? 0
        let passed = count >= (low ?? 0) && count <= (high ?? .max)
        guard let largest else {
            let faultedFailures = records.filter { $0.isFaulted && $0.failed }.count
            let why = faultedFailures == 0 ? "no faulted request failed" : "no faulted resource was requested again after it failed"
            return Finding(passed: passed, observed: "0 retries (\(why))")
        }
        let statuses = Self.runs(largest.statuses.map { $0.map(String.init) ?? "no response" })
        var text = "\(largest.retries) retr\(largest.retries == 1 ? "y" : "ies") of \(largest.resource.words) (\(statuses))"
        if faulted.count > 1 { text += "; \(faulted.count - 1) other faulted resource\(faulted.count == 2 ? "" : "s") retried" }
        return Finding(passed: passed, observed: text, evidence: largest.records)
    }

    func failedOver(within: Duration?) -> Finding {
        if let failover = reaction.failovers.first(where: { inTime($0.after, within) }) {
            return Finding(passed: true, observed: failoverWords(failover), evidence: failover.records)
        }
        if let failover = reaction.failovers.first {
            return Finding(passed: false, observed: "too late: " + failoverWords(failover), evidence: failover.records)
        }
        let backups = records.filter { $0.copy == "backup" }
        let text = backups.isEmpty
            ? "no request for a backup copy"
            : "\(backups.count) request\(backups.count == 1 ? "" : "s") for backup copies, none after a failure of the primary"
        return Finding(passed: false, observed: text, evidence: backups.prefix(5).map(\.id))
    }

    private func failoverWords(_ failover: ReactionReport.Failover) -> String {
        "requested the backup copy of variant \(failover.variant) \(seconds(failover.after)) after the primary failed"
            + (failover.succeeded ? " (it loaded)" : " (it failed too)")
    }

    /// VOD: the report's stop is `finished` (the last segment requested was its variant's last,
    /// with no failure at the end).
    func fetchedToTheVODEnd() -> Finding {
        guard let stop = reaction.stop else {
            return .unjudged("the reaction report has no stop: the player was still requesting when it was made")
        }
        let last = stop.lastSegment.map { " (last segment: \($0.words))" } ?? " (no segment requested)"
        switch stop.kind {
        case .finished:
            return Finding(passed: true, observed: "finished at the last segment" + last, evidence: stop.records)
        case .gaveUp:
            return Finding(passed: false, observed: "gave up after failures" + last, evidence: stop.records)
        case .stopped:
            return Finding(passed: false, observed: "stopped before the last segment, or the last segment is not known" + last,
                           evidence: stop.records)
        }
    }

    /// Live: a segment loaded within the last two target durations of the run (10 s when the
    /// target duration is not known).
    func fetchedToTheLiveEnd() -> Finding {
        // A live player loads a segment about every target duration, after the reload that lists it
        // (up to another target duration): three of them, and 2 s for a player being stopped.
        let window = reaction.reloads.lazy.compactMap(\.targetDuration).first.map { max(3 * $0, 6) + 2 } ?? 10
        // The video's segments when there are any: a player whose variant died while an audio
        // rendition went on did not keep playing.
        let loaded = records.filter { $0.isMediaData && !$0.failed }
        let video = loaded.filter { $0.variant != nil }
        guard let last = (video.isEmpty ? loaded : video).last else {
            return Finding(passed: false, observed: "no segment loaded")
        }
        let before = runEnded.timeIntervalSince(last.time)
        let what = last.msn.map { "segment \($0)" } ?? "a segment"
        let owner = last.variant.map { " of variant \($0)" } ?? last.rendition.map { " of rendition \($0)" } ?? ""
        let text = "last segment loaded \(seconds(max(0, before))) before the end of the run (\(what)\(owner))"
        return Finding(passed: before <= window, observed: before <= window ? text : text + "; expected within \(seconds(window))",
                       evidence: [last.id])
    }

    func stopped(within: Duration?) -> Finding {
        guard let stop = reaction.stop else {
            return Finding(passed: false, observed: "still requesting when the run ended")
        }
        guard stop.kind == .gaveUp else {
            return Finding(passed: false, observed: stop.kind == .finished
                ? "did not give up: finished at the last segment" : "stopped with no failure at the end", evidence: stop.records)
        }
        let failures = stop.records.filter { byID[$0]?.failed == true }.count
        let since = "(\(failures) failed request\(failures == 1 ? "" : "s") since the last segment that loaded)"
        guard let trigger else {
            return Finding(passed: within == nil, observed: "gave up \(since), with no fault or failure to time it from",
                           evidence: stop.records)
        }
        let after = max(0, stop.time.timeIntervalSince(trigger.time))
        return Finding(passed: inTime(after, within), observed: "gave up \(seconds(after)) after \(triggerWords) \(since)",
                       evidence: [trigger.record] + stop.records.filter { $0 != trigger.record })
    }

    /// `withinBounds`: every judged playlist; `tooFast`/`tooSlow`: at least one.
    func reloadCadence(_ pace: Expectation.ReloadPace) -> Finding {
        let judged = reaction.reloads.filter { $0.pace != .notJudged }
        guard !judged.isEmpty else {
            return .unjudged("no reload cadence could be judged (\(reaction.reloads.count) media playlist"
                + "\(reaction.reloads.count == 1 ? "" : "s") reloaded; judging needs a target duration, 3 or more requests and no blocking reloads)")
        }
        func words(_ cadence: ReactionReport.ReloadCadence) -> String {
            let ratio = cadence.ratio.map { String(format: "%.2f", $0) } ?? "?"
            return "\(cadence.owner) every \(seconds(cadence.medianInterval)) (\(ratio)× the target duration, \(cadence.pace.rawValue))"
        }
        let wanted = ReactionReport.ReloadCadence.Pace(rawValue: pace.rawValue) ?? .withinBounds
        let matching = judged.filter { $0.pace == wanted }
        let passed = wanted == .withinBounds ? matching.count == judged.count : !matching.isEmpty
        // Name what decided: the offenders when bounds are expected, else the playlists with that pace.
        let shown = wanted == .withinBounds ? (passed ? judged : judged.filter { $0.pace != wanted }) : (passed ? matching : judged)
        let text = (wanted == .withinBounds && passed ? "all \(judged.count) judged playlists within bounds: " : "")
            + shown.map(words).joined(separator: "; ")
        return Finding(passed: passed, observed: text, evidence: shown.flatMap(\.records))
    }

    /// Segment requests a gap rule matched. A `gap` rule marks a segment in the media playlist when
    /// its conditions hold for that segment, and the same conditions decide on the segment's own
    /// request, so a segment request among a gap rule's matches is a request for a marked segment.
    /// Gap rules are read off the media playlist records (a `gap` action and the rule that decided it).
    func neverRequestedGapSegments() -> Finding {
        var gapRules = Set<String>()
        var playlists: [UInt64] = []
        for record in records where record.kind == .media {
            for action in record.actions where action.kind == .content("gap") {
                guard let rule = action.rule else { continue }
                gapRules.insert(rule)
                if playlists.last != record.id { playlists.append(record.id) }
            }
        }
        guard !gapRules.isEmpty else {
            return Finding(passed: true, observed: "no media playlist was served with a gap rule (nothing to avoid)")
        }
        let offenders = records.filter { $0.isMediaData && !gapRules.isDisjoint(with: $0.matchedRules) }
        let rules = gapRules.sorted().joined(separator: ", ")
        guard !offenders.isEmpty else {
            return Finding(passed: true,
                           observed: "no request for a segment marked by \(rules) (\(playlists.count) playlist response\(playlists.count == 1 ? "" : "s") with the gap rule)",
                           evidence: playlists)
        }
        let listed = offenders.prefix(6).map { record in
            let what = record.msn.map { "segment \($0)" } ?? "a segment"
            return "\(what)\(record.variant.map { " of variant \($0)" } ?? "") (\(record.statusWords))"
        }.joined(separator: ", ") + (offenders.count > 6 ? ", …" : "")
        return Finding(passed: false,
                       observed: "\(offenders.count) request\(offenders.count == 1 ? "" : "s") for segments marked EXT-X-GAP: \(listed)",
                       evidence: offenders.map(\.id))
    }

    func skipped(_ low: Int?, _ high: Int?) -> Finding {
        let count = reaction.skipped.reduce(0) { $0 + $1.to - $1.from + 1 }
        let passed = count >= (low ?? 0) && count <= (high ?? .max)
        guard !reaction.skipped.isEmpty else { return Finding(passed: passed, observed: "no segment skipped") }
        let runs = reaction.skipped.map { $0.from == $0.to ? "\($0.from)" : "\($0.from)–\($0.to)" }.joined(separator: ", ")
        return Finding(passed: passed, observed: "\(count) segment\(count == 1 ? "" : "s") skipped (\(runs))",
                       evidence: reaction.skipped.flatMap(\.records))
    }

    // MARK: - player side

    func outcome(_ outcomes: [String]) -> Finding {
        guard let player else { return .unjudged("no player report") }
        return Finding(passed: outcomes.contains(player.outcome.rawValue), observed: "outcome: \(player.outcomeText)")
    }

    func playerError(kind: String?, code: Int?, fatal: Bool?) -> Finding {
        guard let player else { return .unjudged("no player report") }
        let matching = player.errors.filter { error in
            (kind.map { error.kind.range(of: $0, options: .caseInsensitive) != nil } ?? true)
                && (code.map { error.code == $0 } ?? true)
                && (fatal.map { error.fatal == $0 } ?? true)
        }
        if let first = matching.first {
            let more = matching.count > 1 ? " (and \(matching.count - 1) more)" : ""
            return Finding(passed: true, observed: "reported " + errorWords(first) + more)
        }
        guard !player.errors.isEmpty else { return Finding(passed: false, observed: "no error reported") }
        var distinct: [String] = []
        for error in player.errors {
            let words = errorWords(error, time: false)
            if !distinct.contains(words) { distinct.append(words) }
        }
        let listed = distinct.prefix(5).joined(separator: ", ") + (distinct.count > 5 ? ", …" : "")
        return Finding(passed: false, observed: "no matching error; reported: \(listed)")
    }

    /// "fragLoadError 503 (non-fatal) at 16.2 s".
    private func errorWords(_ error: PlayerReport.PlayerError, time: Bool = true) -> String {
        var text = error.kind + (error.code.map { " \($0)" } ?? "") + (error.fatal ? " (fatal)" : " (non-fatal)")
        if time, let at = error.time { text += " at \(seconds(at))" }
        return text
    }

    func log(_ pattern: String, shouldMatch: Bool) -> Finding {
        guard let player else { return .unjudged("no player report") }
        guard let regex = try? NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines]) else {
            return .unjudged("invalid regular expression")
        }
        let log = player.log
        guard let match = regex.firstMatch(in: log, range: NSRange(log.startIndex..., in: log)),
              let range = Range(match.range, in: log) else {
            let lines = log.split(whereSeparator: \.isNewline).count
            return Finding(passed: !shouldMatch, observed: "no line of the log matches (\(lines) line\(lines == 1 ? "" : "s"))")
        }
        let lineStart = log[..<range.lowerBound].lastIndex(where: \.isNewline).map { log.index(after: $0) } ?? log.startIndex
        let lineEnd = log[range.lowerBound...].firstIndex(where: \.isNewline) ?? log.endIndex
        var line = String(log[lineStart..<max(lineEnd, range.upperBound)]).trimmingCharacters(in: .whitespaces)
        if line.count > 160 { line = String(line.prefix(159)) + "…" }
        return Finding(passed: shouldMatch, observed: "matched: \"\(line)\"")
    }

    // MARK: - combination

    func anyOf(_ checks: [Expectation.Check]) -> Finding {
        let findings = checks.map(judge)
        let passed = findings.contains(where: \.passed)
        let text = zip(checks, findings).map { check, finding in
            "\(check.key): \(finding.observed)"
        }.joined(separator: "; ")
        var evidence: [UInt64] = []
        for finding in findings where finding.passed || !passed {
            for id in finding.evidence where !evidence.contains(id) { evidence.append(id) }
        }
        return Finding(passed: passed, observed: text, evidence: evidence,
                       judged: passed || findings.allSatisfy(\.judged))
    }

    /// Holds when the check does not; what was seen is the same. A check that could not be judged
    /// fails either way.
    func negated(_ check: Expectation.Check) -> Finding {
        var finding = judge(check)
        if finding.judged { finding.passed.toggle() }
        return finding
    }

    /// "503 ×7320, 200": repeated answers counted, so a player that retries in a tight loop gives
    /// one short line, not thousands of statuses.
    static func runs(_ items: [String]) -> String {
        var parts: [(String, Int)] = []
        for item in items {
            if let last = parts.last, last.0 == item { parts[parts.count - 1].1 += 1 } else { parts.append((item, 1)) }
        }
        return parts.map { $0.1 > 2 ? "\($0.0) ×\($0.1)" : Array(repeating: $0.0, count: $0.1).joined(separator: ", ") }
            .joined(separator: ", ")
    }
}

// MARK: - content steering

extension RunFacts {
    func movedPathway(to: String?, within: Duration?) -> Finding {
        guard let steering = reaction.steering, let first = steering.firstPathway else {
            return .unjudged("no variant segment of a content-steering pathway was requested")
        }
        let after = steering.moves.filter { move in move.records.last.map(isAfterTrigger) ?? false }
        let since = { (move: ReactionReport.PathwayMove) in max(0, move.time.timeIntervalSince(trigger?.time ?? move.time)) }
        let list = after.map { "\($0.from) → \($0.to) after \(seconds(since($0)))" }.joined(separator: ", ")
        guard !after.isEmpty else {
            return Finding(passed: false, observed: "stayed on pathway \(steering.moves.last?.to ?? first) after \(triggerWords)")
        }
        let passed = after.contains { move in (to.map { move.to == $0 } ?? true) && inTime(since(move), within) }
        return Finding(passed: passed, observed: "moved pathway: \(list)", evidence: after.flatMap(\.records))
    }

    func steeringReloads(_ low: Int?, _ high: Int?) -> Finding {
        let reloads = (reaction.steering?.reloads ?? []).filter(isAfterTrigger)
        let passed = reloads.count >= (low ?? 0) && reloads.count <= (high ?? .max)
        var observed = "\(reloads.count) steering manifest request\(reloads.count == 1 ? "" : "s") after \(triggerWords)"
        if let interval = reaction.steering?.medianInterval { observed += " (every \(seconds(interval)) over the run)" }
        return Finding(passed: passed, observed: observed, evidence: reloads)
    }
}
