import BundleFormat
/// A segment, key or init section to fetch.
struct MediaItem: Sendable, Equatable {
    var url: String
    var range: String?
    var kind: String

    var key: String { range.map { url + " " + $0 } ?? url }
}

/// The media waiting for one of the recorder's connections. Bounded: a VOD playlist's watcher
/// waits for room (`push(wait: true)`); a live one never waits (its reloads keep their schedule)
/// and the oldest waiting item is dropped instead, counted as skipped — a recorder that cannot
/// keep up with a live stream loses its oldest media rather than growing without end.
actor MediaQueue {
    private var items: [MediaItem] = []
    private var head = 0
    private var producers: Int
    private var closed = false
    private var takers: [CheckedContinuation<MediaItem?, Never>] = []
    private var roomWaiters: [CheckedContinuation<Void, Never>] = []
    let limit: Int

    init(producers: Int, limit: Int) {
        self.producers = producers
        self.limit = max(1, limit)
    }

    var count: Int { items.count - head }

    /// Adds `item`; returns how many items were dropped to make room (0 or 1), or nil when the
    /// queue is closed.
    func push(_ item: MediaItem, wait: Bool) async -> Int? {
        while wait && count >= limit && !closed {
            await withCheckedContinuation { roomWaiters.append($0) }
        }
        if closed { return nil }
        if !takers.isEmpty {
            takers.removeFirst().resume(returning: item)
            return 0
        }
        var dropped = 0
        if count >= limit {
            head += 1
            dropped = 1
        }
        items.append(item)
        compact()
        return dropped
    }

    /// The next item, waiting for one; nil once the queue is closed, or every producer has
    /// finished and nothing is left.
    func next() async -> MediaItem? {
        if count > 0 {
            let item = items[head]
            head += 1
            compact()
            if !roomWaiters.isEmpty { roomWaiters.removeFirst().resume() }
            return item
        }
        if closed || producers == 0 { return nil }
        return await withCheckedContinuation { takers.append($0) }
    }

    func addProducers(_ count: Int) { producers += count }

    /// Whether a producer (a playlist's watcher) is still at work.
    var hasProducers: Bool { producers > 0 }

    func producerFinished() {
        producers -= 1
        if producers <= 0 && count == 0 { wakeEveryone() }
    }

    /// Drops what is waiting and ends every `next` and `push`.
    func close() {
        closed = true
        items = []
        head = 0
        wakeEveryone()
    }

    private func wakeEveryone() {
        let waiting = takers
        takers = []
        for taker in waiting { taker.resume(returning: nil) }
        let blocked = roomWaiters
        roomWaiters = []
        for waiter in blocked { waiter.resume() }
    }

    private func compact() {
        if head > 256 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
    }
}

/// The keys of the media fetched lately, so that a segment, key or init section named by several
/// playlists (or by several versions of one) is fetched once. Bounded: the oldest keys are
/// forgotten first; live playlists also skip segments at or below the MSN they already queued.
struct RecentKeys {
    private var set: Set<String> = []
    private var order: [String] = []
    private var head = 0
    let capacity: Int

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// True when `key` was not there (and is now).
    mutating func insert(_ key: String) -> Bool {
        guard set.insert(key).inserted else { return false }
        order.append(key)
        if set.count > capacity {
            set.remove(order[head])
            head += 1
            if head > 1024 && head * 2 > order.count {
                order.removeFirst(head)
                head = 0
            }
        }
        return true
    }
}
