import CMCD
import Foundation

extension ReactionReport {
    /// CMCD's claimed buffer (`bl`) beside the buffer the page itself measured (the browser
    /// drivers' `PlayerReport.buffer`, every 250 ms). The clocks are aligned on the session's first
    /// request: the page's clock starts as its script starts, and the script loads the source at
    /// once, so the first request reaches the proxy within milliseconds of the page's 0.
    public struct PageBufferCheck: Sendable, Codable, Equatable {
        /// How the two clocks were put together, in words.
        public var alignment: String
        /// Requests with `bl` that had a page sample within `maxSampleDistance` of them.
        public var compared: Int
        /// Seconds, claimed − page: the median (positive: CMCD claimed more than there was).
        public var medianDifference: Double
        /// Seconds: the median of |claimed − page|.
        public var medianAbsoluteDifference: Double
        /// The request where they differed most.
        public var largest: BufferDifference
        /// Seconds: a claim further off than this is off.
        public var tolerance: Double
        /// More than half the compared requests (at least `minimumCompared`) were off by more than
        /// `tolerance`: the median |difference| is above it.
        public var persistentlyOff: Bool
    }

    public struct BufferDifference: Sendable, Codable, Equatable {
        public var record: UInt64
        /// Seconds since the session's first request.
        public var time: Double
        /// Seconds: what CMCD claimed and what the page had.
        public var claimed: Double
        public var page: Double
        /// claimed − page.
        public var difference: Double
    }

    /// 1 s: a segment appended between the page's sample and the request is a few seconds; a
    /// player's rounding (100 ms) and the sample's distance (at most 125 ms) are far less.
    public static let pageBufferTolerance = 1.0
    /// Fewer compared requests than this never make "persistently off".
    public static let minimumCompared = 4
    /// A request is compared with the page sample nearest to it, when one is this close (seconds).
    public static let maxSampleDistance = 0.3

    /// The comparison, from the timeline's points (times since the session's first request) and the
    /// page's samples (`at` on the page's clock, `ahead` seconds buffered); nil when no request with
    /// `bl` had a sample near it. Pure.
    public static func comparePageBuffer(
        _ points: [PlayerTimeline.Point], page samples: [(at: Double, ahead: Double)],
        tolerance: Double = pageBufferTolerance
    ) -> PageBufferCheck? {
        let samples = samples.sorted { $0.at < $1.at }
        guard !samples.isEmpty else { return nil }
        var differences: [BufferDifference] = []
        for point in points {
            guard let claimed = point.bufferLength, let sample = nearest(samples, to: point.time),
                  abs(sample.at - point.time) <= maxSampleDistance else { continue }
            let claimedSeconds = Double(claimed) / 1000
            differences.append(BufferDifference(
                record: point.record, time: point.time, claimed: claimedSeconds, page: sample.ahead,
                difference: rounded(claimedSeconds - sample.ahead)))
        }
        guard let largest = differences.max(by: { abs($0.difference) < abs($1.difference) }) else { return nil }
        let median = rounded(Self.median(differences.map(\.difference)))
        let absolute = rounded(Self.median(differences.map { abs($0.difference) }))
        return PageBufferCheck(
            alignment: "the page's clock from the session's first request",
            compared: differences.count, medianDifference: median, medianAbsoluteDifference: absolute, largest: largest,
            tolerance: tolerance, persistentlyOff: differences.count >= minimumCompared && absolute > tolerance)
    }

    /// The run's page samples, its driver's stalls (both on the player's clock) and the session's
    /// records: the player section gains the comparison with the page's buffer, and the stalls the
    /// CMCD never said are judged with the driver's stalls too. The verdict's player sentences follow.
    public mutating func addPlayerAccount(
        records: [RequestRecord], pageBuffer samples: [(at: Double, ahead: Double)], stalls: [(at: Double, duration: Double)]
    ) {
        guard var player else { return }
        let before = Self.playerSentences(player).map { $0 + "." }.joined(separator: " ")
        player.pageBuffer = Self.comparePageBuffer(PlayerTimeline.build(records).points, page: samples)
        player.stallsNotSaid = CMCDSessionConformance.unsaidStallIssue(records, playerStalls: CMCDKnownStall.reported(stalls))?.description
        self.player = player
        let after = Self.playerSentences(player).map { $0 + "." }.joined(separator: " ")
        if !before.isEmpty, verdict.hasSuffix(before) { verdict.removeLast(before.count) }
        if !after.isEmpty { verdict += (verdict.isEmpty || verdict.hasSuffix(" ") ? "" : " ") + after }
        verdict = verdict.trimmingCharacters(in: .whitespaces)
    }

    static func nearest(_ samples: [(at: Double, ahead: Double)], to time: Double) -> (at: Double, ahead: Double)? {
        // The first sample at or after `time`, or the one before it, whichever is closer.
        var low = 0, high = samples.count
        while low < high {
            let middle = (low + high) / 2
            if samples[middle].at < time { low = middle + 1 } else { high = middle }
        }
        let candidates = [low - 1, low].filter { samples.indices.contains($0) }.map { samples[$0] }
        return candidates.min { abs($0.at - time) < abs($1.at - time) }
    }

    static func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
}
