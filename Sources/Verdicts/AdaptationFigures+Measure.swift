import Foundation
import PlayerReports
import Records

extension AdaptationFigures {
    /// The figures of one run: its session records (any order), the reaction report read off them,
    /// the player's report (for stalls) and what the link offered.
    public static func measure(records: [RequestRecord], reaction: ReactionReport, player: PlayerReport?,
                               link: LinkObservation) -> AdaptationFigures {
        let ordered = records.streamRecords.sorted { ($0.time, $0.id) < ($1.time, $1.id) }
        return AdaptationFigures(
            timeline: VariantTimeline(records: ordered, reaction: reaction), player: player,
            cmcdStalls: PlayerTimeline.build(ordered).cmcdStalls, link: link)
    }

    /// `cmcdStalls`: the stalls the player said through CMCD (nil: it sent none), counted when its
    /// report has none, as the `stalls` check does.
    init(timeline: VariantTimeline, player: PlayerReport?, cmcdStalls: [PlayerTimeline.Stall]?, link: LinkObservation) {
        let measure = Measurement(timeline: timeline, link: link)
        let falls = measure.falls()
        let (utilisation, overshoot) = measure.utilisationAndOvershoot()
        self.init(
            from: Self.rounded(measure.from), to: Self.rounded(max(measure.from, measure.to)),
            variants: timeline.spans.map { span in
                VariantSpan(at: Self.rounded(measure.seconds(span.start)), variant: span.variant, bandwidth: measure.bandwidth(of: span.variant))
            },
            switches: timeline.switches.count, switchesPerMinute: (timeline.switchesPerMinute * 100).rounded() / 100,
            falls: falls, stalls: nil, stallSeconds: nil,
            utilisation: utilisation.map { ($0 * 10_000).rounded() / 10_000 }, overshoot: Self.rounded(overshoot),
            topBandwidth: link.ladder.max())
        if let player, Self.countsReport(player, over: cmcdStalls) {
            stalls = player.stalls.count
            stallSeconds = Self.rounded(player.stalls.reduce(0) { $0 + max(0, $1.duration) })
            stallSource = .report
        } else if let cmcdStalls, !cmcdStalls.isEmpty {
            stalls = cmcdStalls.count
            stallSeconds = Self.rounded(cmcdStalls.reduce(0) { $0 + max(0, $1.duration ?? 0) })
            stallSource = .cmcd
        }
    }

    /// Whether the stalls counted are the player's report: when it has any, or its CMCD said none
    /// (or nothing at all); else the stalls its CMCD said. The figures and the `stalls` check agree.
    static func countsReport(_ player: PlayerReport, over cmcdStalls: [PlayerTimeline.Stall]?) -> Bool {
        !player.stalls.isEmpty || cmcdStalls?.isEmpty != false
    }

    /// To the millisecond, so that the JSON says 3.4, not 3.4000000000000004.
    static func rounded(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }
}

/// The arithmetic of the figures, on the session clock in seconds.
private struct Measurement {
    let timeline: VariantTimeline
    let clockZero: Date
    let ladder: [Int]
    let slots: [CapacitySlot]
    /// The span judged: the player's fetching within the link's history.
    let from: Double
    let to: Double
    /// The starts of the timeline's spans and the switches, in seconds.
    let spanStarts: [Double]

    init(timeline: VariantTimeline, link: LinkObservation) {
        self.timeline = timeline
        clockZero = link.clockZero
        ladder = link.ladder
        slots = CapacitySlot.slots(of: link)
        let zero = link.clockZero
        spanStarts = timeline.spans.map { $0.start.timeIntervalSince(zero) }
        let historyFrom = slots.first?.start ?? 0
        let historyTo = slots.last?.end ?? 0
        if timeline.isEmpty {
            from = historyFrom; to = historyFrom
        } else {
            from = max(timeline.start.timeIntervalSince(zero), historyFrom)
            to = min(timeline.end.timeIntervalSince(zero), historyTo)
        }
    }

    func seconds(_ date: Date) -> Double { date.timeIntervalSince(clockZero) }

    func bandwidth(of variant: Int) -> Int? { ladder.indices.contains(variant) ? ladder[variant] : nil }

    func variant(at time: Double) -> Int? {
        guard let index = spanStarts.lastIndex(where: { $0 <= time }) else { return nil }
        return timeline.spans[index].variant
    }

    /// Where the next span starts after `time` (infinity after the last).
    func nextChange(after time: Double) -> Double {
        spanStarts.first { $0 > time } ?? .infinity
    }

    // MARK: - falls and recoveries

    /// Every fall below the variant in use, with how the player answered it. A fall is looked for at
    /// each bucket start from the first segment to `settle` before the end of the fetching; a
    /// variant's fall is not looked for again until it has recovered; the lowest variant has none
    /// (there is nothing to go down to).
    func falls() -> [AdaptationFigures.Fall] {
        guard !timeline.isEmpty, let lowest = ladder.min() else { return [] }
        var found: [AdaptationFigures.Fall] = []
        var openUntil: [Int: Double] = [:]
        for index in slots.indices.dropFirst() where isContiguous(index) {
            let at = slots[index].start
            guard at >= from, at + AdaptationFigures.settle <= to + 1e-9 else { continue }
            guard let variant = variant(at: at), let bandwidth = bandwidth(of: variant), bandwidth > lowest,
                  at >= openUntil[variant] ?? -.infinity,
                  slots[index - 1].capacity >= Double(bandwidth), holds(from: index, below: bandwidth)
            else { continue }
            found.append(fall(at: index, variant: variant, bandwidth: bandwidth))
            openUntil[variant] = found.last?.recoveredAfter.map { at + $0 } ?? .infinity
        }
        return found
    }

    private func fall(at index: Int, variant: Int, bandwidth: Int) -> AdaptationFigures.Fall {
        let at = slots[index].start
        // A recovery counts when the player was still fetching for `settle` after it.
        let recoveryIndex = crossing(after: index, below: false, bandwidth: bandwidth)
            .flatMap { slots[$0].start + AdaptationFigures.settle <= to + 1e-9 ? $0 : nil }
        let belowEnd = recoveryIndex.map { slots[$0].start } ?? to
        let down = timeline.switches.first { change in
            change.direction == .down && (at..<belowEnd).contains(seconds(change.time))
        }
        var fall = AdaptationFigures.Fall(
            at: AdaptationFigures.rounded(at), variant: variant, bandwidth: bandwidth, capacity: Int(slots[index].capacity.rounded()),
            below: AdaptationFigures.rounded(belowEnd - at),
            wentDownAfter: down.map { AdaptationFigures.rounded(seconds($0.time) - at) }, downSwitch: down?.records.last)
        guard let recoveryIndex else { return fall }
        let recovery = slots[recoveryIndex].start
        let nextFall = crossing(after: recoveryIndex, below: true, bandwidth: bandwidth).map { slots[$0].start }
        let upEnd = min(nextFall ?? to, to)
        fall.recoveredAfter = AdaptationFigures.rounded(recovery - at)
        fall.recoveredFor = AdaptationFigures.rounded(upEnd - recovery)
        let bandwidthThen = self.variant(at: recovery).flatMap { self.bandwidth(of: $0) }
        fall.neededUp = bandwidthThen.map { $0 < bandwidth } ?? false
        guard fall.neededUp else { return fall }
        let up = timeline.switches.first { change in
            change.direction == .up && (recovery..<max(recovery, upEnd)).contains(seconds(change.time))
        }
        fall.wentUpAfter = up.map { AdaptationFigures.rounded(seconds($0.time) - recovery) }
        fall.upSwitch = up?.records.last
        return fall
    }

    /// The first slot after `index` at which the capacity crosses `bandwidth` (downwards when
    /// `below`, else upwards) and stays across it for `settle`.
    private func crossing(after index: Int, below: Bool, bandwidth: Int) -> Int? {
        var next = index + 1
        while next < slots.count {
            let wasAcross = below ? slots[next - 1].capacity < Double(bandwidth) : slots[next - 1].capacity >= Double(bandwidth)
            if isContiguous(next), !wasAcross, below ? holds(from: next, below: bandwidth) : holds(from: next, atLeast: bandwidth) {
                return next
            }
            next += 1
        }
        return nil
    }

    /// The capacity stays below `bandwidth` for `settle` from slot `index`, in contiguous slots.
    private func holds(from index: Int, below bandwidth: Int) -> Bool {
        holds(from: index) { $0.capacity < Double(bandwidth) }
    }

    private func holds(from index: Int, atLeast bandwidth: Int) -> Bool {
        holds(from: index) { $0.capacity >= Double(bandwidth) }
    }

    private func holds(from index: Int, _ condition: (CapacitySlot) -> Bool) -> Bool {
        var held = 0.0
        var current = index
        while current < slots.count, condition(slots[current]), current == index || isContiguous(current) {
            held += slots[current].length
            if held >= AdaptationFigures.settle - 1e-9 { return true }
            current += 1
        }
        return false
    }

    /// Slot `index` starts where the one before it ends (the history has no gap there).
    private func isContiguous(_ index: Int) -> Bool {
        index > 0 && abs(slots[index].start - slots[index - 1].end) < 1e-6
    }

    // MARK: - utilisation and overshoot

    /// Both weighed over the up time of the span judged, cut where a bucket or the variant in use changes.
    func utilisationAndOvershoot() -> (Double?, Double) {
        guard !timeline.isEmpty, let top = ladder.max(), let lowest = ladder.min() else { return (nil, 0) }
        var used = 0.0, weighed = 0.0, overshoot = 0.0
        for slot in slots where slot.end > from && slot.start < to {
            var start = max(slot.start, from)
            let end = min(slot.end, to)
            while start < end {
                let pieceEnd = min(nextChange(after: start), end)
                defer { start = pieceEnd }
                guard let variant = variant(at: start), let bandwidth = bandwidth(of: variant).map(Double.init) else { continue }
                let weight = (pieceEnd - start) * slot.up
                if bandwidth > slot.capacity, bandwidth > Double(lowest) { overshoot += weight }
                let capacity = min(slot.capacity, Double(top))
                guard capacity > 0 else { continue }
                used += weight * min(bandwidth, capacity) / capacity
                weighed += weight
            }
        }
        return (weighed > 0 ? used / weighed : nil, overshoot)
    }
}
