/// The versions of one playlist (one session, one URL) as fetched from upstream, with the instant
/// each was first seen. Consecutive identical bodies are stored once. Bounded: the oldest versions
/// go first when `capacity` is reached (at a 2 s reload, 512 versions cover about 17 minutes).
public struct PlaylistHistory: Sendable, Equatable {
    public struct Version: Sendable, Equatable {
        public var body: [UInt8]
        /// Engine-clock instant when this body was first seen.
        public var seen: Duration
    }

    public private(set) var versions: [Version] = []
    public let capacity: Int
    /// Bytes of all versions kept.
    public private(set) var byteCount = 0

    public init(capacity: Int = 512) { self.capacity = max(1, capacity) }

    /// Returns the change in `byteCount`.
    @discardableResult
    public mutating func record(_ body: [UInt8], at instant: Duration) -> Int {
        let before = byteCount
        if let last = versions.last, last.body == body { return 0 }
        // Out-of-order records (concurrent fetches) keep the list sorted by time.
        if let last = versions.last, instant < last.seen {
            let position = versions.firstIndex { $0.seen > instant } ?? versions.count
            versions.insert(Version(body: body, seen: instant), at: position)
        } else {
            versions.append(Version(body: body, seen: instant))
        }
        byteCount += body.count
        while versions.count > capacity { dropOldest() }
        return byteCount - before
    }

    /// Forgets the oldest version; returns the bytes freed.
    @discardableResult
    public mutating func dropOldest() -> Int {
        guard !versions.isEmpty else { return 0 }
        let freed = versions.removeFirst().body.count
        byteCount -= freed
        return freed
    }

    /// Forgets versions no instant at or after `cutoff` can ask for: all but the newest one seen at
    /// or before it. Returns the bytes freed.
    @discardableResult
    public mutating func forget(before cutoff: Duration) -> Int {
        var freed = 0
        while versions.count >= 2, versions[1].seen <= cutoff { freed += dropOldest() }
        return freed
    }

    /// When the oldest version kept was first seen.
    public var oldestSeen: Duration? { versions.first?.seen }

    /// The version current at `instant`: the newest one seen at or before it. Before the first
    /// version (or after it was evicted) the oldest version kept is the best answer.
    public func version(asOf instant: Duration) -> [UInt8]? {
        (versions.last { $0.seen <= instant } ?? versions.first)?.body
    }

    /// The version seen just before `instant` (strictly earlier); `freeze` serves this from the
    /// moment its window opens. Falls back to the oldest version kept.
    public func version(before instant: Duration) -> [UInt8]? {
        (versions.last { $0.seen < instant } ?? versions.first)?.body
    }

    /// `lag`: the playlist as the origin had it `lag` ago.
    public func version(now: Duration, lag: Duration) -> [UInt8]? {
        version(asOf: now - lag)
    }

    public var latest: [UInt8]? { versions.last?.body }
}
