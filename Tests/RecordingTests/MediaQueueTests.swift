import Testing
@testable import Recorder

/// What keeps the recorder's memory flat: the media queue and the set of recent keys are bounded.
@Suite struct MediaQueueTests {
    static func item(_ n: Int) -> MediaItem { MediaItem(url: "http://o/seg\(n).ts", kind: "segment") }

    @Test func aLiveQueueDropsItsOldestItemWhenFull() async {
        let queue = MediaQueue(producers: 1, limit: 3)
        var dropped = 0
        for n in 0..<5 { dropped += await queue.push(Self.item(n), wait: false) ?? 0 }
        let count = await queue.count
        #expect(dropped == 2 && count == 3)
        await queue.producerFinished()
        var taken: [String] = []
        while let next = await queue.next() { taken.append(next.url) }
        #expect(taken == (2..<5).map { "http://o/seg\($0).ts" }, "the newest are kept, in order")
    }

    @Test func aVODPushWaitsForRoomAndCloseEndsEveryone() async {
        let queue = MediaQueue(producers: 1, limit: 2)
        let producer = Task {
            var pushed = 0
            for n in 0..<6 { if await queue.push(Self.item(n), wait: true) == 0 { pushed += 1 } }
            await queue.producerFinished()
            return pushed
        }
        var taken: [String] = []
        var most = 0
        while let next = await queue.next() {
            most = max(most, await queue.count)
            taken.append(next.url)
        }
        let pushed = await producer.value
        #expect(pushed == 6 && taken.count == 6 && most <= 2, "nothing dropped: the producer waited")
    }

    /// The push below is known to be waiting (not merely started) before the queue is touched
    /// again: `pushOnceStarted` says so from inside the actor, which it holds until `push` suspends.
    @Test func aFullQueueHoldsAWaitingPushUntilAnItemIsTaken() async {
        let queue = MediaQueue(producers: 1, limit: 1)
        #expect(await queue.push(Self.item(0), wait: true) == 0)
        let (started, signal) = AsyncStream<Void>.makeStream()
        let blocked = Task { await queue.pushOnceStarted(Self.item(1), signal: signal) }
        for await _ in started { break }
        let first = await queue.next()
        let dropped = await blocked.value
        await queue.producerFinished()
        let second = await queue.next()
        #expect(first?.url == Self.item(0).url, "the waiting push did not replace the item in the queue")
        #expect(dropped == 0, "nothing dropped: the push waited for room")
        #expect(second?.url == Self.item(1).url)
    }

    @Test func closeEndsAWaitingPushAndEveryLaterTake() async {
        let queue = MediaQueue(producers: 1, limit: 1)
        _ = await queue.push(Self.item(0), wait: true)
        let (started, signal) = AsyncStream<Void>.makeStream()
        let (ended, end) = AsyncStream<Int?>.makeStream()
        Task {
            end.yield(await queue.pushOnceStarted(Self.item(1), signal: signal))
            end.finish()
        }
        for await _ in started { break }
        await queue.close()
        // A push that close left waiting would wait forever: give up on it after 30 s.
        let timer = Task { try await Task.sleep(for: .seconds(30)); end.finish() }
        var afterClose: Int?? = .none
        for await result in ended { afterClose = .some(result) }
        timer.cancel()
        let next = await queue.next()
        #expect(afterClose != nil, "close did not end the waiting push")
        #expect(afterClose == .some(nil) && next == nil, "a closed queue drops what waits and takes nothing more")
    }

    @Test func recentKeysForgetTheOldestBeyondTheirCapacity() {
        var keys = RecentKeys(capacity: 100)
        var fresh = 0
        for n in 0..<10_000 where keys.insert("k\(n)") { fresh += 1 }
        #expect(fresh == 10_000)
        let again = keys.insert("k9999") || keys.insert("k9900")
        #expect(!again, "the latest are remembered")
        let old = keys.insert("k0")
        #expect(old, "the oldest were forgotten")
    }
}

extension MediaQueue {
    /// `push(wait: true)` after yielding to `signal`, both on the actor: the actor is not given up
    /// between the two (a call to the same actor does not hop), so once the signal is seen, the
    /// push has either returned or is suspended waiting for room.
    fileprivate func pushOnceStarted(_ item: MediaItem, signal: AsyncStream<Void>.Continuation) async -> Int? {
        signal.yield()
        signal.finish()
        return await push(item, wait: true)
    }
}
