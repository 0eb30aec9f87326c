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

        let closing = MediaQueue(producers: 1, limit: 1)
        _ = await closing.push(Self.item(0), wait: true)
        let blocked = Task { await closing.push(Self.item(1), wait: true) }
        try? await Task.sleep(for: .milliseconds(100))
        await closing.close()
        let afterClose = await blocked.value
        let next = await closing.next()
        #expect(afterClose == nil && next == nil, "a closed queue drops what waits and takes nothing more")
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
