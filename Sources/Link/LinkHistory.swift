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
struct LinkHistory: Sendable {
    static let bucketNanos: Nanos = 250 * nanosPerMillisecond
    /// Ten minutes.
    static let defaultCapacity = 2400

    let capacity: Int
    private var ring: [LinkBucket] = []
    /// Where the oldest bucket is in `ring` once it is full.
    private var head = 0
    /// The bucket being filled.
    private(set) var current: LinkBucket
    private(set) var currentDownAtStart: Nanos = 0

    init(capacity: Int, from start: Nanos) {
        self.capacity = max(1, capacity)
        let first = start - start % Self.bucketNanos
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
        if ring.count < capacity {
            ring.append(current)
        } else {
            ring[head] = current
            head = (head + 1) % capacity
        }
        current = LinkBucket(start: .linkNanos(next), offeredBytes: 0, deliveredBytes: 0, downTime: .zero)
        currentDownAtStart = downTotalAtEnd
    }

    /// Restarts the down count of the current bucket (after a skipped gap).
    mutating func markDownStart(_ downTotal: Nanos) { currentDownAtStart = downTotal }

    /// The closed buckets, oldest first.
    var closed: [LinkBucket] { Array(ring[head...] + ring[..<head]) }
}
