import Foundation

extension ReactionReport {
    /// Reads how the player reacted off one session's records.
    ///
    /// - Parameters:
    ///   - records: the session's records (sorted here by time, then id; only the stream's own are
    ///     read, see `streamRecords`).
    ///   - now: the moment the report is made; a player silent for longer than `idleThreshold`
    ///     before it has stopped.
    ///   - targetDuration: the media playlists' EXT-X-TARGETDURATION for a live stream; nil for VOD
    ///     (reload cadence is then not judged).
    ///   - bandwidths: BANDWIDTH per variant index, to tell up- from down-switches; without a
    ///     variant's bandwidth the index order decides (index 0 lowest).
    ///   - lastMSN: the last media sequence number per variant of a complete (VOD) playlist, to tell
    ///     a finished playback from one that stopped early.
    ///   - idleThreshold: seconds without requests after which the player counts as stopped;
    ///     default 3 × `targetDuration`, or 10 s.
    public static func analyze(
        _ records: [RequestRecord], now: Date, targetDuration: Double? = nil, bandwidths: [Int: Int] = [:],
        lastMSN: [Int: Int] = [:], idleThreshold: Double? = nil
    ) -> ReactionReport {
        let records = records.streamRecords.sorted(by: RequestRecord.chronological)
        let threshold = idleThreshold ?? targetDuration.map { 3 * $0 } ?? 10
        let faulted = records.first(where: \.isFaulted)
        let failed = records.first(where: \.countsAsFailure)

        var report = ReactionReport(session: records.first?.session, requests: records.count)
        report.firstFault = faulted.map(Incident.init)
        report.firstFailure = failed.map(Incident.init)
        report.switches = switches(in: records, bandwidths: bandwidths)
        report.retries = retries(in: records)
        report.failovers = failovers(in: records)
        report.reloads = reloads(in: records, targetDuration: targetDuration)
        report.skipped = skipped(in: records)
        report.stop = stop(of: records, now: now, threshold: threshold, lastMSN: lastMSN)
        report.steering = steering(in: records)
        report.failures = records.filter(\.countsAsFailure).map(\.id)
        report.player = player(in: records)
        let byID = Dictionary(records.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        if let trigger = faulted ?? failed {
            report.firstReaction = firstReaction(
                after: trigger, retries: report.retries, switches: report.switches, failovers: report.failovers,
                stop: report.stop, records: byID)
        }
        report.outcome = outcome(of: records, faulted: faulted != nil, stop: report.stop)
        report.notes = notes(
            report, bandwidths: bandwidths, lastMSN: lastMSN, targetDuration: targetDuration, threshold: threshold)
        report.verdict = verdict(report, records: byID)
        return report
    }

    static func outcome(of records: [RequestRecord], faulted: Bool, stop: Stop?) -> Outcome {
        let relevant = records.filter(\.mattersForPlayback)
        guard let lastFailure = relevant.lastIndex(where: \.countsAsFailure) else { return faulted ? .continued : .clean }
        if stop?.kind == .gaveUp { return .gaveUp }
        let hasSegments = relevant.contains(where: \.isMediaData)
        let later = relevant[(lastFailure + 1)...]
        return later.contains { !$0.countsAsFailure && ($0.isMediaData || !hasSegments) } ? .recovered : .unrecovered
    }

    static func notes(
        _ report: ReactionReport, bandwidths: [Int: Int], lastMSN: [Int: Int], targetDuration: Double?, threshold: Double
    ) -> [String] {
        var notes: [String] = []
        if report.switches.contains(where: { $0.basis == .index }) {
            notes.append(bandwidths.isEmpty
                ? "Up/down decided by variant index (no bandwidths given): "
                    + "assumes the master lists variants from lowest to highest bandwidth."
                : "Up/down decided by variant index for variants without a given bandwidth.")
        }
        if !report.reloads.isEmpty, targetDuration == nil {
            notes.append("Reload cadence not judged: no target duration given (VOD, or unknown).")
        }
        if report.reloads.contains(where: { $0.pace == .notJudged && $0.targetDuration != nil && $0.requests >= 3 }) {
            notes.append("Blocking playlist reloads (_HLS_msn) are paced by the server; their cadence is not judged.")
        }
        if report.stop?.kind == .stopped {
            notes.append("Stopped: no request for more than \(seconds(threshold)), "
                + (lastMSN.isEmpty ? "and whether the content had ended is not known (no lastMSN given)."
                    : "before the variant's last segment (lastMSN)."))
        }
        return notes
    }
}
