import Addressing
import NIOCore
@testable import Proxy
import Testing

@Suite struct RewriteCacheTests {
    func key(_ n: Int) -> RewriteCache.Key {
        RewriteCache.Key(upstreamURL: "http://o/\(n).m3u8", tag: ResourceTag(kind: .media), sessionPrefix: "", clientPath: "/\(n).m3u8", forward: false)
    }

    func entry(_ size: Int) -> RewriteCache.Entry {
        RewriteCache.Entry(upstream: ByteBuffer(repeating: 1, count: size), output: ByteBuffer(repeating: 2, count: size), summary: .media(segments: [], isComplete: true))
    }

    @Test func staysWithinItsBytesDroppingTheOldestFirst() {
        let cache = RewriteCache(byteLimit: 10_000)
        for n in 0..<20 { cache.store(key(n), entry(1000)) }  // 2,000 bytes each
        #expect(cache.byteCount <= 10_000)
        #expect(cache.count == 5)
        #expect(cache.lookup(key(19), upstream: ByteBuffer(repeating: 1, count: 1000)) != nil)
        #expect(cache.lookup(key(0), upstream: ByteBuffer(repeating: 1, count: 1000)) == nil)
    }

    @Test func aLivePlaylistReplacedOnEveryReloadDoesNotGrowTheCache() {
        let cache = RewriteCache(byteLimit: 1_000_000)
        for n in 0..<10_000 { cache.store(key(n % 3), entry(100 + n % 7)) }
        #expect(cache.count == 3)
        #expect(cache.byteCount == (9997..<10_000).map { 2 * (100 + $0 % 7) }.reduce(0, +))
    }

    /// A short playlist that arrived in a large network buffer is kept as its bytes alone (the limit
    /// counts bytes), and is still found by them.
    @Test func aSmallBodyInALargeBufferIsKeptAsItsBytes() {
        let cache = RewriteCache(byteLimit: 1_000_000)
        var arrived = ByteBufferAllocator().buffer(capacity: 64 * 1024)
        arrived.writeString("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n")
        cache.store(key(1), RewriteCache.Entry(upstream: arrived, output: ByteBuffer(string: "x"), summary: .media(segments: [], isComplete: true)))
        let found = cache.lookup(key(1), upstream: ByteBuffer(string: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n"))
        #expect(found?.upstream.capacity ?? .max < 4096)
        #expect(cache.lookup(key(1), upstream: ByteBuffer(string: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=2\nv.m3u8\n")) == nil)
    }

    /// What the next fetch of a URL most likely returns: the body last kept for it under any key, and
    /// nothing once that entry is gone.
    @Test func theExpectedBodyIsTheOneLastKeptForTheURL() {
        let cache = RewriteCache(byteLimit: 10_000)
        var sessionKey = key(1)
        sessionKey.sessionPrefix = "/s/tv"
        sessionKey.clientPath = "/s/tv/1.m3u8"
        #expect(cache.expectedUpstream(for: "http://o/1.m3u8") == nil)
        cache.store(key(1), RewriteCache.Entry(upstream: ByteBuffer(string: "first"), output: ByteBuffer(string: "x"), summary: .media(segments: [], isComplete: true)))
        #expect(cache.expectedUpstream(for: "http://o/1.m3u8") == ByteBuffer(string: "first"))
        cache.store(sessionKey, RewriteCache.Entry(upstream: ByteBuffer(string: "second"), output: ByteBuffer(string: "x"), summary: .media(segments: [], isComplete: true)))
        #expect(cache.expectedUpstream(for: "http://o/1.m3u8") == ByteBuffer(string: "second"))
        #expect(cache.expectedUpstream(for: "http://o/2.m3u8") == nil)
        // Entries of other URLs push both out: nothing is expected any more.
        for n in 2...6 { cache.store(key(n), entry(1_000)) }
        #expect(cache.lookup(sessionKey, upstream: ByteBuffer(string: "second")) == nil)
        #expect(cache.expectedUpstream(for: "http://o/1.m3u8") == nil)
        #expect(cache.expectedUpstream(for: "http://o/6.m3u8") == ByteBuffer(repeating: 1, count: 1_000))
    }

    @Test func zeroDisablesIt() {
        let cache = RewriteCache(byteLimit: 0)
        cache.store(key(1), entry(10))
        #expect(cache.count == 0)
    }
}
