import Chaos
import Foundation
import Link

/// What a session's link offered while a player played through it: the input of the adaptation
/// figures and of the link checks (`switchedDown … after linkBelowVariant`, `utilisation`,
/// `overshoot`). A run without a link has none, and those checks cannot be judged.
public struct LinkObservation: Sendable, Equatable {
    /// The link's history (`LinkScheduler.history(now:)`), oldest first: 250 ms buckets on the
    /// session's clock. The scheduler keeps ten minutes of them; a longer run is judged on its last
    /// ten minutes.
    public var buckets: [LinkBucket]
    /// Where the session clock's zero lies: a bucket starting at `start` began at
    /// `clockZero + start`, on the same clock as the records' `time`.
    public var clockZero: Date
    /// The variants' `BANDWIDTH` in bits per second, by variant index: the position of the
    /// `EXT-X-STREAM-INF` in the master, 0-based, as `RequestRecord.variant` and a link spec's
    /// `"variant N"` number them.
    public var ladder: [Int]
    /// Where the last bucket ends on the session clock: the `now` the history was taken at (the last
    /// bucket is the one under way). nil: the last bucket is taken as a whole 250 ms.
    public var until: Duration?

    public init(buckets: [LinkBucket], clockZero: Date, ladder: [Int], until: Duration? = nil) {
        self.buckets = buckets; self.clockZero = clockZero; self.ladder = ladder; self.until = until
    }
}

/// One stretch of the link's history with a capacity: a bucket, clipped to `until` when it is the
/// one under way. Times in seconds on the session clock.
struct CapacitySlot {
    var start: Double
    var end: Double
    /// The capacity set, in bits per second, averaged over the slot (before stalls and outages).
    var capacity: Double
    /// The part of the slot the link was up (0…1): the bad state and outages take the rest.
    var up: Double

    var length: Double { end - start }

    /// The buckets as slots, in time order; a bucket that ends where it starts is left out.
    static func slots(of link: LinkObservation) -> [CapacitySlot] {
        let buckets = link.buckets.sorted { $0.start < $1.start }
        let bucketLength = LinkBucket.length.seconds
        var slots: [CapacitySlot] = []
        for (index, bucket) in buckets.enumerated() {
            let start = bucket.start.seconds
            var end = start + bucketLength
            if index + 1 < buckets.count { end = min(end, buckets[index + 1].start.seconds) }
            if index + 1 == buckets.count, let until = link.until { end = min(end, until.seconds) }
            guard end > start else { continue }
            let length = end - start
            slots.append(CapacitySlot(
                start: start, end: end, capacity: Double(bucket.offeredBytes) * 8 / length,
                up: min(1, max(0, 1 - bucket.downTime.seconds / length))))
        }
        return slots
    }
}
