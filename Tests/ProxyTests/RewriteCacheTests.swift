import Addressing
import NIOCore
@testable import Proxy
import Testing

@Suite struct RewriteCacheTests {
    func key(_ n: Int) -> RewriteCache.Key {
        RewriteCache.Key(upstreamURL: "http://o/\(n).m3u8", tag: ResourceTag(kind: .media), sessionPrefix: "", clientPath: "/\(n).m3u8", forward: false)
    }

    func entry(_ size: Int) -> RewriteCache.Entry {
        RewriteCache.Entry(upstream: Array(repeating: 1, count: size), output: ByteBuffer(repeating: 2, count: size), summary: .media(segments: [], isComplete: true))
    }

    @Test func staysWithinItsBytesDroppingTheOldestFirst() {
        let cache = RewriteCache(byteLimit: 10_000)
        for n in 0..<20 { cache.store(key(n), entry(1000)) }  // 2,000 bytes each
        #expect(cache.byteCount <= 10_000)
        #expect(cache.count == 5)
        #expect(cache.lookup(key(19), upstream: Array(repeating: 1, count: 1000)) != nil)
        #expect(cache.lookup(key(0), upstream: Array(repeating: 1, count: 1000)) == nil)
    }

    @Test func aLivePlaylistReplacedOnEveryReloadDoesNotGrowTheCache() {
        let cache = RewriteCache(byteLimit: 1_000_000)
        for n in 0..<10_000 { cache.store(key(n % 3), entry(100 + n % 7)) }
        #expect(cache.count == 3)
        #expect(cache.byteCount == (9997..<10_000).map { 2 * (100 + $0 % 7) }.reduce(0, +))
    }

    @Test func zeroDisablesIt() {
        let cache = RewriteCache(byteLimit: 0)
        cache.store(key(1), entry(10))
        #expect(cache.count == 0)
    }
}
