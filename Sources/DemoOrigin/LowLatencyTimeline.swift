import Foundation

/// A part of the low-latency stream: part `index` of the segment with media sequence number `msn`.
struct PartPosition: Comparable, Hashable, Sendable, CustomStringConvertible {
    var msn: Int
    var index: Int

    static func < (lhs: PartPosition, rhs: PartPosition) -> Bool {
        (lhs.msn, lhs.index) < (rhs.msn, rhs.index)
    }

    var description: String { "part \(index) of segment \(msn)" }
}

/// When each part and segment of the `/ll/` stream is published.
///
/// Same looping timeline as `/live/` (`LiveTimeline`: MSN `n` shows VOD segment `n % count`,
/// and the stream pretends to have started one window before the origin), but a segment is
/// published part by part: part `k` of segment `msn` exists once the clock passes
/// `streamStart + msn × segmentDuration + (k + 1) × partDuration`; the segment is complete
/// with its last part. Every rendition follows this one clock.
struct LowLatencyTimeline: Sendable {
    let live: LiveTimeline
    let partsPerSegment: Int

    init(originStart: Date, segmentDuration: Double, partsPerSegment: Int, windowSize: Int) {
        live = LiveTimeline(originStart: originStart, segmentDuration: segmentDuration, windowSize: windowSize)
        self.partsPerSegment = partsPerSegment
    }

    /// Nominal part length in seconds: the publication interval.
    var partDuration: Double { live.segmentDuration / Double(partsPerSegment) }

    /// How many parts have been published since the stream started (at least one window's worth).
    func publishedPartCount(at now: Date) -> Int {
        let elapsed = now.timeIntervalSince(live.streamStart) / partDuration
        let minimum = live.windowSize * partsPerSegment
        guard elapsed.isFinite, elapsed < Double(Int.max / 4) else { return minimum }
        // Dates are doubles about 1e9 s from their reference, so "exactly at its publication
        // instant" can come out a fraction of a microsecond early: allow 40 µs.
        return max(minimum, Int((elapsed + 1e-4).rounded(.down)))
    }

    /// The newest published part.
    func latestPart(at now: Date) -> PartPosition {
        position(ofOrdinal: publishedPartCount(at: now) - 1)
    }

    /// The newest complete segment.
    func latestCompleteMSN(at now: Date) -> Int {
        publishedPartCount(at: now) / partsPerSegment - 1
    }

    /// The instant `part` is published.
    func publicationTime(of part: PartPosition) -> Date {
        live.streamStart.addingTimeInterval(Double(ordinal(of: part) + 1) * partDuration)
    }

    /// The instant segment `msn` is complete.
    func completionTime(ofSegment msn: Int) -> Date {
        publicationTime(of: PartPosition(msn: msn, index: partsPerSegment - 1))
    }

    func ordinal(of part: PartPosition) -> Int {
        part.msn * partsPerSegment + part.index
    }

    func position(ofOrdinal ordinal: Int) -> PartPosition {
        PartPosition(msn: ordinal / partsPerSegment, index: ordinal % partsPerSegment)
    }
}
