/// The throughput a device had, read off a recording's exchanges: a `seconds,kbps` link trace
/// (docs/link.md, *Traces*) that `hlschaos replay --link recorded` runs and `import-har` writes.
///
/// Each exchange with a body and its timings says when its body arrived: from its first byte
/// (`at + firstByte`) to its end (`at + total`), `body.size` bytes. A second's rate is the bits that
/// arrived in it over the time in it that some body was arriving (several at once add up; the
/// time is their union). What this can say: how fast bodies came while the device was fetching —
/// a lower bound of its link (a player that paused between segments did not use all of it). What it
/// cannot: the link while the device fetched nothing (a second without a body keeps the rate of the
/// last second that had one; the first ones take the first known rate), losses and latency apart
/// from the transfer time, and anything a HAR's timings leave out (a HAR says when a body finished,
/// not how its bytes were spread: they are taken as even).
public enum ObservedThroughput {
    /// Kilobits per second a second may hold at least: a second whose bodies crawled still carried
    /// something.
    public static let floorKbps = 1

    /// One body's arrival: when its request was made (seconds into the recording), when its
    /// first byte and its end came (seconds after that), and its bytes.
    public struct Arrival: Sendable, Equatable {
        public var at: Double
        public var firstByte: Double?
        public var total: Double?
        public var bytes: Int?
        public init(at: Double, firstByte: Double?, total: Double?, bytes: Int?) {
            self.at = at; self.firstByte = firstByte; self.total = total; self.bytes = bytes
        }
    }

    /// The trace of a recording's exchanges (their bodies' sizes and timings).
    public static func csv(_ exchanges: [Exchange], from: Double = 0, speed: Double = 1) -> String? {
        csv(exchanges.map { Arrival(at: $0.at, firstByte: $0.timings.firstByte, total: $0.timings.total, bytes: $0.body?.size) },
            from: from, speed: speed)
    }

    /// The trace from `from` seconds into the recording, its clock `speed` times as fast (rates
    /// scaled alike); nil when no arrival says when its body came.
    public static func csv(_ arrivals: [Arrival], from: Double = 0, speed: Double = 1) -> String? {
        let windows = arrivals.compactMap { arrival -> (start: Double, end: Double, bits: Double)? in
            guard let size = arrival.bytes, size > 0, let total = arrival.total else { return nil }
            let start = arrival.at + (arrival.firstByte ?? 0)
            let end = arrival.at + total
            guard end > start, end > from else { return nil }
            return ((max(start, from) - from) / speed, (end - from) / speed, Double(size) * 8 * (min(end - start, end - from) / (end - start)))
        }
        guard !windows.isEmpty else { return nil }
        let seconds = Int((windows.map(\.end).max() ?? 0).rounded(.up))
        var bits = [Double](repeating: 0, count: max(seconds, 1))
        var busy = [[(Double, Double)]](repeating: [], count: bits.count)
        for window in windows {
            let rate = window.bits / (window.end - window.start)
            var second = Int(window.start.rounded(.down))
            while second < bits.count, Double(second) < window.end {
                let overlap = (max(window.start, Double(second)), min(window.end, Double(second + 1)))
                if overlap.1 > overlap.0 {
                    bits[second] += rate * (overlap.1 - overlap.0)
                    busy[second].append(overlap)
                }
                second += 1
            }
        }
        var rows = ["seconds,kbps"]
        var last: Int?
        let rates = bits.indices.map { second -> Int? in
            let time = union(busy[second])
            return time > 0 ? max(floorKbps, Int((bits[second] / time / 1000).rounded())) : nil
        }
        let first = rates.compactMap { $0 }.first ?? floorKbps
        for (second, rate) in rates.enumerated() {
            let value = rate ?? last ?? first
            if value != last || second == 0 { rows.append("\(second),\(value)") }
            last = value
        }
        return rows.joined(separator: "\n") + "\n"
    }

    /// The length covered by intervals within one second.
    private static func union(_ intervals: [(Double, Double)]) -> Double {
        var total = 0.0
        var reach = -Double.infinity
        for (start, end) in intervals.sorted(by: { $0.0 < $1.0 }) {
            let from = max(start, reach)
            if end > from { total += end - from }
            reach = max(reach, end)
        }
        return total
    }
}
