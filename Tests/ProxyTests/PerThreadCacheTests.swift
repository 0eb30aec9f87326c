import Foundation
import Proxy
import Testing

@Suite struct PerThreadCacheTests {
    final class Box: @unchecked Sendable { var count = 0 }

    @Test func aValuePerKeyAndThreadMadeOnce() async throws {
        let first = PerThreadCache.Key(), second = PerThreadCache.Key()
        let a = PerThreadCache.value(first, make: Box.init)
        a.count = 7
        #expect(PerThreadCache.value(first, make: Box.init) === a, "made again on the same thread")
        #expect(PerThreadCache.value(second, make: Box.init) !== a, "another key shares the value")
        let other = await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
            Thread { continuation.resume(returning: PerThreadCache.value(first, make: Box.init).count) }.start()
        }
        #expect(other == 0, "another thread sees this thread's value")
    }

    @Test func aThreadKeepsItsNewestOwnersOnly() {
        let keys = (0..<20).map { _ in PerThreadCache.Key() }
        let values = keys.map { PerThreadCache.value($0, make: Box.init) }
        #expect(PerThreadCache.value(keys[19], make: Box.init) === values[19])
        #expect(PerThreadCache.value(keys[0], make: Box.init) !== values[0], "the oldest of 20 owners was dropped (16 kept)")
    }
}
