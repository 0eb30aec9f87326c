import Foundation

/// One function per finding. Each takes the session's records in time order.
extension ReactionReport {
    /// Switches between the variants whose segments are requested (backup copies count as their variant).
    static func switches(in records: [RequestRecord], bandwidths: [Int: Int]) -> [VariantSwitch] {
        var found: [VariantSwitch] = []
        var current: (variant: Int, index: Int)?
        for (index, record) in records.enumerated() where record.isMediaData {
            guard let variant = record.variant else { continue }
            defer { current = (variant, index) }
            guard let previous = current, previous.variant != variant else { continue }
            let playlist = records[(previous.index + 1)..<index].first { $0.kind == .media && $0.variant == variant }
            let (direction, basis) = direction(from: previous.variant, to: variant, bandwidths: bandwidths)
            found.append(VariantSwitch(
                time: playlist?.time ?? record.time, from: previous.variant, to: variant, direction: direction, basis: basis,
                records: [records[previous.index].id] + (playlist.map { [$0.id] } ?? []) + [record.id]))
        }
        return found
    }

    static func direction(from: Int, to: Int, bandwidths: [Int: Int]) -> (VariantSwitch.Direction, VariantSwitch.Basis) {
        if let old = bandwidths[from], let new = bandwidths[to] {
            return (new > old ? .up : new < old ? .down : .lateral, .bandwidth)
        }
        return (to > from ? .up : .down, .index)
    }

    /// Every failed request followed by requests for the same resource; a series ends with the first
    /// attempt that succeeds.
    static func retries(in records: [RequestRecord]) -> [RetrySeries] {
        var open: [ReactionReport.ResourceKey: [RequestRecord]] = [:]
        var series: [[RequestRecord]] = []
        for record in records {
            let key = record.resourceKey
            if var attempts = open[key] {
                attempts.append(record)
                if record.countsAsFailure {
                    open[key] = attempts
                } else {
                    series.append(attempts)
                    open[key] = nil
                }
            } else if record.countsAsFailure {
                open[key] = [record]
            }
        }
        series += open.values.filter { $0.count > 1 }
        return series
            .sorted { RequestRecord.chronological($0[0], $1[0]) }
            .map { attempts in
                RetrySeries(
                    resource: attempts[0].reportResource, retries: attempts.count - 1,
                    spacing: zip(attempts, attempts.dropFirst()).map { $1.time.timeIntervalSince($0.time) },
                    succeeded: !attempts[attempts.count - 1].countsAsFailure, statuses: attempts.map(\.status),
                    records: attempts.map(\.id))
            }
    }

    /// The first request for a variant's backup copy after its primary copy failed (and did not
    /// succeed again for the same kind of resource in between); one per variant.
    static func failovers(in records: [RequestRecord]) -> [Failover] {
        var episode: [Int: RequestRecord] = [:]
        var found: [Int: Failover] = [:]
        for (index, record) in records.enumerated() {
            guard let variant = record.variant, found[variant] == nil else { continue }
            if record.isBackup {
                guard let failure = episode[variant] else { continue }
                let backups = records[index...].filter { $0.isBackup && $0.variant == variant }
                found[variant] = Failover(
                    variant: variant, time: record.time, after: record.time.timeIntervalSince(failure.time),
                    succeeded: backups.contains { !$0.countsAsFailure }, records: [failure.id, record.id])
            } else if record.countsAsFailure {
                if episode[variant] == nil { episode[variant] = record }
            } else if episode[variant]?.kind == record.kind {
                episode[variant] = nil
            }
        }
        return found.values.sorted { ($0.time, $0.variant) < ($1.time, $1.variant) }
    }

    /// Media playlist requests grouped by playlist; judged against the target duration when given.
    static func reloads(in records: [RequestRecord], targetDuration: Double?) -> [ReloadCadence] {
        struct Playlist: Hashable { var variant: Int?; var rendition: Int?; var copy: String? }
        var order: [Playlist] = []
        var requests: [Playlist: [RequestRecord]] = [:]
        for record in records where record.kind == .media {
            let playlist = Playlist(variant: record.variant, rendition: record.rendition, copy: record.copy)
            if requests[playlist] == nil { order.append(playlist) }
            requests[playlist, default: []].append(record)
        }
        return order.compactMap { playlist in
            let loads = requests[playlist]!
            guard loads.count >= 2 else { return nil }
            let median = median(zip(loads, loads.dropFirst()).map { $1.time.timeIntervalSince($0.time) })
            let ratio = targetDuration.flatMap { $0 > 0 ? median / $0 : nil }
            var pace = ReloadCadence.Pace.notJudged
            if let ratio, loads.count >= 3, !loads.contains(where: \.isBlockingReload) {
                pace = ratio < 0.5 ? .tooFast : ratio > 1.5 ? .tooSlow : .withinBounds
            }
            return ReloadCadence(
                variant: playlist.variant, rendition: playlist.rendition, copy: playlist.copy, requests: loads.count,
                medianInterval: median, targetDuration: targetDuration, ratio: ratio, pace: pace,
                lowLatency: lowLatency(loads), records: loads.map(\.id))
        }
    }

    static func lowLatency(_ loads: [RequestRecord]) -> LowLatencyReloads? {
        let blocking = loads.filter(\.isBlockingReload)
        let deltaUpdates = loads.filter(\.isDeltaUpdate).count
        guard !blocking.isEmpty || deltaUpdates > 0 else { return nil }
        let longest = blocking.max { $0.duration < $1.duration }
        return LowLatencyReloads(
            blocking: blocking.count, medianHeld: blocking.isEmpty ? nil : median(blocking.map(\.duration)),
            longestHeld: longest?.duration, longestRecord: longest?.id, deltaUpdates: deltaUpdates)
    }

    /// Runs of MSNs never loaded (never requested, or every request for them failed) although a
    /// later one was, from the first MSN requested on. Variant segments of any variant count (MSNs
    /// line up across variants); a gap filled later by an out-of-order request is no gap. A seek
    /// forward looks the same as a skip.
    static func skipped(in records: [RequestRecord]) -> [SkippedSegments] {
        let segments = records.filter { $0.isMediaData && $0.variant != nil && $0.msn != nil }
        let loads = segments.filter { !$0.countsAsFailure }
        let loaded = Set(loads.compactMap(\.msn))
        guard let start = segments.first?.msn else { return [] }
        var runs: [ClosedRange<Int>] = []
        var next = loaded.contains(start) ? start + 1 : start  // the lowest MSN not covered yet
        for msn in loaded.filter({ $0 > start }).sorted() {
            if msn > next { runs.append(next...(msn - 1)) }
            next = msn + 1
        }
        return runs.compactMap { run in
            // The first load past the run, and the last load before the run that preceded it.
            guard let after = loads.firstIndex(where: { $0.msn! > run.upperBound }) else { return nil }
            let before = loads[..<after].last { $0.msn! < run.lowerBound }
            let failed = segments.filter { run.contains($0.msn!) }.map(\.id)
            return SkippedSegments(variant: loads[after].variant, from: run.lowerBound, to: run.upperBound,
                                   time: loads[after].time, records: (before.map { [$0.id] } ?? []) + failed + [loads[after].id])
        }
    }

    /// Set when nothing was requested for longer than `threshold` before `now`.
    static func stop(of records: [RequestRecord], now: Date, threshold: Double, lastMSN: [Int: Int]) -> Stop? {
        guard let last = records.max(by: { $0.responseEnd < $1.responseEnd }) else { return nil }
        let idle = now.timeIntervalSince(last.responseEnd)
        guard idle > threshold else { return nil }
        let relevant = records.filter(\.mattersForPlayback)
        let hasSegments = relevant.contains(where: \.isMediaData)
        let lastGood = relevant.lastIndex { !$0.countsAsFailure && ($0.isMediaData || !hasSegments) }
        let tail = relevant[(lastGood.map { $0 + 1 } ?? 0)...].filter(\.countsAsFailure)
        let lastSegment = records.last(where: \.isMediaData)
        if !tail.isEmpty {
            let ids = tail.map(\.id)
            return Stop(kind: .gaveUp, time: last.responseEnd, idle: idle, lastSegment: lastSegment?.reportResource,
                        records: ids.contains(last.id) ? ids : ids + [last.id])
        }
        var kind = Stop.Kind.stopped
        // Judged on the variant's own segments: a player may fetch an audio rendition's last
        // segments after the video's (ffmpeg does).
        if let lastVideo = records.last(where: { $0.isMediaData && $0.variant != nil }), let variant = lastVideo.variant,
           let msn = lastVideo.msn, let end = lastMSN[variant], msn >= end {
            kind = .finished
        }
        return Stop(kind: kind, time: last.responseEnd, idle: idle, lastSegment: lastSegment?.reportResource, records: [last.id])
    }

    /// The earliest retry, switch, failover or give-up after `trigger`.
    static func firstReaction(
        after trigger: RequestRecord, retries: [RetrySeries], switches: [VariantSwitch], failovers: [Failover],
        stop: Stop?, records byID: [UInt64: RequestRecord]
    ) -> Reaction? {
        func isAfter(_ id: UInt64) -> Bool {
            guard let record = byID[id] else { return false }
            return RequestRecord.chronological(trigger, record)
        }
        var candidates: [(time: Date, kind: Reaction.Kind, ids: [UInt64])] = []
        for series in retries {
            if let retry = series.records.dropFirst().first(where: isAfter), let record = byID[retry] {
                candidates.append((record.time, .retry, [retry]))
            }
        }
        for change in switches where change.records.last.map(isAfter) == true {
            // The new variant's playlist may have been loaded just before the trigger.
            candidates.append((max(change.time, trigger.time), .switch, Array(change.records.dropFirst())))
        }
        for failover in failovers where failover.records.last.map(isAfter) == true {
            candidates.append((failover.time, .failover, [failover.records[1]]))
        }
        if let stop, stop.kind == .gaveUp, stop.time >= trigger.time {
            candidates.append((stop.time, .gaveUp, stop.records.filter { $0 != trigger.id }))
        }
        guard let first = candidates.min(by: { $0.time < $1.time }) else { return nil }
        return Reaction(kind: first.kind, time: first.time, after: first.time.timeIntervalSince(trigger.time),
                        records: [trigger.id] + first.ids)
    }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
