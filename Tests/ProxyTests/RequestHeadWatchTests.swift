import NIOCore
@testable import Proxy
import Testing

@Suite struct RequestHeadWatchTests {
    let limits = RequestHeadWatch.Limits(requestHeadTimeout: .seconds(10), keepAliveTimeout: .seconds(75), maxHeadBytes: 64)
    let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    func bytes(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    @Test func theEndOfAHeadIsFoundAcrossReadsWithCRLFOrBareLF() {
        for pieces in [["GET / HTTP/1.1\r\nHost: a\r", "\n\r", "\n"], ["GET / HTTP/1.1\nHost: a\n", "\n"], ["GET / HTTP/1.1\r\n\r\n"]] {
            var watch = RequestHeadWatch(limits: limits, now: start)
            for piece in pieces { #expect(watch.received(bytes(piece), now: start) == .fine) }
            #expect(watch.state == .headComplete(since: start), "\(pieces)")
        }
    }

    @Test func timeoutsFollowTheState() {
        var watch = RequestHeadWatch(limits: limits, now: start)
        #expect(watch.deadline == start + .seconds(75))
        #expect(watch.expired(now: start + .seconds(76)) == .keepAliveIdle)
        _ = watch.received(bytes("GET / HT"), now: start + .seconds(1))
        #expect(watch.deadline == start + .seconds(11))
        #expect(watch.expired(now: start + .seconds(12)) == .requestHead)
        _ = watch.received(bytes("TP/1.1\r\n\r\n"), now: start + .seconds(2))
        #expect(watch.deadline == start + .seconds(11), "the head timeout counts from its first byte")
        watch.requestStarted()
        #expect(watch.deadline == nil, "nothing times out while a request is answered")
        watch.responseFinished(now: start + .seconds(100))
        #expect(watch.deadline == start + .seconds(175))
    }

    @Test func onlyTheHeadCountsTowardsTheLimit() {
        var watch = RequestHeadWatch(limits: limits, now: start)
        #expect(watch.received(bytes("GET / HTTP/1.1\r\n\r\n" + String(repeating: "x", count: 200)), now: start) == .fine)
        var large = RequestHeadWatch(limits: limits, now: start)
        #expect(large.received(bytes("GET / HTTP/1.1\r\nCookie: " + String(repeating: "x", count: 30)), now: start) == .fine)
        #expect(large.received(bytes(String(repeating: "x", count: 30)), now: start) == .headTooLarge)
    }
}
