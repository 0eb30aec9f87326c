import NIOCore
import Testing

@testable import Upstream

/// The hand-over between the curl thread and a transfer's consumer, driven alone: plain integers
/// stand in for the continuations that wait for the head and for bytes.
@Suite struct TransferHandOverTests {
    typealias HandOver = TransferHandOver<Int, Int>
    let allocator = ByteBufferAllocator()

    func receive(_ count: Int, _ handOver: inout HandOver, highWatermark: Int = 1_000_000) -> HandOver.Received {
        let bytes = [UInt8](repeating: 7, count: count)
        return bytes.withUnsafeBytes { handOver.received($0, highWatermark: highWatermark, allocator: allocator) }
    }

    @Test func smallPiecesJoinOneChunkAndAreTakenInOrder() throws {
        var handOver = HandOver()
        #expect(receive(1_000, &handOver) == .buffered(wake: false))
        #expect(receive(2_000, &handOver) == .buffered(wake: false))
        #expect(handOver.chunks.count == 1)
        #expect(receive(HandOver.minimumChunkCapacity, &handOver) == .buffered(wake: false))
        #expect(handOver.chunks.count == 2)
        #expect(handOver.bufferedBytes == 3_000 + HandOver.minimumChunkCapacity)
        let first = try handOver.take().ready?.get()
        #expect(first?.readableBytes == 3_000)
        #expect(handOver.bufferedBytes == HandOver.minimumChunkCapacity)
        let second = try handOver.take().ready?.get()
        #expect(second?.readableBytes == HandOver.minimumChunkCapacity)
        let none = handOver.take()
        #expect(none.ready == nil, "nothing more has arrived and the body has not ended")
    }

    @Test func aWaitingConsumerIsWokenByBytesAndByTheEnd() {
        var handOver = HandOver()
        let result1 = handOver.park(1)
        #expect(result1)
        let result2 = handOver.takeBodyWaiterIfReady()
        #expect(result2 == nil, "nothing to wake it for yet")
        #expect(receive(10, &handOver) == .buffered(wake: true))
        let result3 = handOver.takeBodyWaiterIfReady()
        #expect(result3 == 1)
        let result4 = handOver.takeBodyWaiterIfReady()
        #expect(result4 == nil, "woken once")
        let result5 = handOver.park(2)
        #expect(!result5, "bytes are waiting: the consumer takes them instead of parking")
        _ = handOver.take()
        let result6 = handOver.park(3)
        #expect(result6)
        handOver.finish(.success(()))
        let result7 = handOver.takeBodyWaiterIfReady()
        #expect(result7 == 3)
        #expect(handOver.isDrained)
    }

    @Test func theHighWatermarkPausesCurlUntilAChunkIsTaken() {
        var handOver = HandOver()
        #expect(receive(600, &handOver, highWatermark: 1_000) == .buffered(wake: false))
        #expect(receive(600, &handOver, highWatermark: 1_000) == .buffered(wake: false))
        #expect(receive(600, &handOver, highWatermark: 1_000) == .pause, "1,200 bytes wait: curl must pause")
        #expect(handOver.pauseCount == 1)
        #expect(handOver.bufferedBytes == 1_200, "the refused piece is not kept: curl delivers it again")
        let taken = handOver.take()
        #expect(taken.unpause)
        let next = handOver.take()
        #expect(!next.unpause, "unpaused once")
    }

    @Test func aCancelWakesBothWaitersOnceAndAbortsCurl() {
        var handOver = HandOver()
        let result8 = handOver.awaitHead(1)
        #expect(result8)
        let result9 = handOver.park(2)
        #expect(result9)
        let cancellation = handOver.cancel()
        #expect(cancellation?.head == 1)
        #expect(cancellation?.body == 2)
        #expect(cancellation?.removeFromMulti == true)
        let again = handOver.cancel()
        #expect(again == nil, "cancelled once")
        #expect(receive(10, &handOver) == .abort)
        let result10 = handOver.awaitHead(3)
        #expect(!result10, "a cancelled transfer is not waited for")
        let ended = handOver.take()
        if case .failure(.cancelled)? = ended.ready {} else { Issue.record("the body ends as cancelled") }
        handOver.finish(.success(()))
        if case .failure(.cancelled)? = handOver.end {} else { Issue.record("the first end stands") }
    }

    @Test func aCancelAfterTheEndLeavesTheMultiAlone() {
        var handOver = HandOver()
        handOver.finish(.failure(.transfer(url: "http://origin/x", message: "reset")))
        let cancellation = handOver.cancel()
        #expect(cancellation?.removeFromMulti == false)
    }

    @Test func aHandedOverChunkWakesTheConsumerUnlessCancelled() {
        var handOver = HandOver()
        let result11 = handOver.park(1)
        #expect(result11)
        let result12 = handOver.handOver(ByteBuffer(bytes: [1, 2, 3]))
        #expect(result12)
        #expect(handOver.bufferedBytes == 3)
        _ = handOver.cancel()
        let result13 = handOver.handOver(ByteBuffer(bytes: [4]))
        #expect(!result13)
        #expect(handOver.bufferedBytes == 0)
    }
}
