/// What the link offered and delivered, in buckets of 250 ms, the newest `capacity` of them.
public struct LinkBucket: Sendable, Equatable {
    public static let length: Duration = .milliseconds(250)

    /// Where the bucket starts on the session's clock.
    public var start: Duration
    /// Bytes the capacity schedule offered in the bucket (before stalls and outages).
    public var offeredBytes: Int64
    /// Bytes handed to responses in the bucket.
    public var deliveredBytes: Int64
    /// How long the link was down in the bucket (bad state or outage).
    public var downTime: Duration

    /// The capacity set, averaged over the bucket.
    public var capacity: LinkRate { LinkRate(bitsPerSecond: offeredBytes * 8 * 4) }
    /// The throughput delivered, averaged over the bucket.
    public var delivered: LinkRate { LinkRate(bitsPerSecond: deliveredBytes * 8 * 4) }
}

/// A ring of the newest buckets: its size never grows past `capacity`, however long the session.
/// A live session fills its ring in ten minutes, so each kept bucket is packed in 16 bytes (a
/// third of a `LinkBucket`): buckets lie on a 250 ms grid from the first one, and no count in a
/// bucket needs more than 32 bits (4.29 GB in 250 ms is 137 Gbit/s: more is counted as that).
struct LinkHistory: Sendable {
    static let bucketNanos: Nanos = 250 * nanosPerMillisecond
    /// Ten minutes.
    static let defaultCapacity = 2400

    private struct Packed {
        /// Buckets since the first.
        var index: UInt32
        var offeredBytes: UInt32
        var deliveredBytes: UInt32
        var downNanos: UInt32
    }

    let capacity: Int
    /// The grid's origin: where the first bucket starts.
    private let first: Nanos
    private var ring: [Packed] = []
    /// Where the oldest bucket is in `ring` once it is full.
    private var head = 0
    /// The bucket being filled.
    private(set) var current: LinkBucket
    private(set) var currentDownAtStart: Nanos = 0

    init(capacity: Int, from start: Nanos) {
        self.capacity = max(1, capacity)
        first = start - start % Self.bucketNanos
        current = LinkBucket(start: .linkNanos(first), offeredBytes: 0, deliveredBytes: 0, downTime: .zero)
    }

    var currentStart: Nanos { current.start.linkNanos }
    var currentEnd: Nanos { currentStart + Self.bucketNanos }

    mutating func deliver(_ bytes: Int) { current.deliveredBytes += Int64(bytes) }

    /// Closes the current bucket with what was offered and the down total at its end, and starts
    /// the one at `next` (later buckets in between were empty and are not kept).
    mutating func close(offered: Double, downTotalAtEnd: Nanos, next: Nanos) {
        current.offeredBytes = Int64(offered.rounded())
        current.downTime = .linkNanos(downTotalAtEnd - currentDownAtStart)
        let packed = Packed(
            index: Self.clamped((currentStart - first) / Self.bucketNanos), offeredBytes: Self.clamped(current.offeredBytes),
            deliveredBytes: Self.clamped(current.deliveredBytes), downNanos: Self.clamped(downTotalAtEnd - currentDownAtStart))
        if ring.count < capacity {
            ring.append(packed)
        } else {
            ring[head] = packed
            head = (head + 1) % capacity
        }
        current = LinkBucket(start: .linkNanos(next), offeredBytes: 0, deliveredBytes: 0, downTime: .zero)
        currentDownAtStart = downTotalAtEnd
    }

    /// Restarts the down count of the current bucket (after a skipped gap).
    mutating func markDownStart(_ downTotal: Nanos) { currentDownAtStart = downTotal }

    /// The closed buckets, oldest first.
    var closed: [LinkBucket] {
        (ring[head...] + ring[..<head]).map { packed in
            LinkBucket(
                start: .linkNanos(first + Nanos(packed.index) * Self.bucketNanos), offeredBytes: Int64(packed.offeredBytes),
                deliveredBytes: Int64(packed.deliveredBytes), downTime: .linkNanos(Nanos(packed.downNanos)))
        }
    }

    private static func clamped(_ value: Int64) -> UInt32 { UInt32(clamping: value) }
}
