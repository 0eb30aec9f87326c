import NIOCore
import Testing
import TestSupport
@testable import Upstream

@Suite struct UpstreamStreamingTests {
    /// A body the origin dribbles out for minutes unless the client goes away.
    private static let endless = TestOrigin.Response.generated(size: 100_000_000, chunk: 16 * 1024, delayBetweenChunks: .milliseconds(5))

    @Test func cancelMidBodyAbortsTheOriginResponse() async throws {
        try await withOrigin { origin, client in
            origin.route("/long.ts", Self.endless)
            let response = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/long.ts"))
            var iterator = response.body.makeAsyncIterator()
            let first = Array(buffer: try #require(try await iterator.next()))
            #expect(first == patternBytes(offset: 0, count: first.count))
            response.body.cancel()
            let afterCancel = await upstreamError { () async throws(UpstreamError) in try await iterator.next() }
            #expect(afterCancel == .cancelled)
            #expect(await origin.waitUntil(timeout: .seconds(30)) { $0.responsesAborted == 1 })
            #expect(origin.responsesCompleted == 0)
        }
    }

    @Test func cancellingTheConsumingTaskAbortsTheOriginResponse() async throws {
        try await withOrigin { origin, client in
            origin.route("/long.ts", Self.endless)
            // The consumer says when it has read body bytes: it is cancelled mid-body.
            let (reading, started) = AsyncStream<Void>.makeStream()
            let consumer = Task {
                let response = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/long.ts"))
                var iterator = response.body.makeAsyncIterator()
                _ = try await iterator.next()
                started.yield()
                while try await iterator.next() != nil {}
            }
            for await _ in reading { break }
            consumer.cancel()
            let result = await consumer.result
            #expect(throws: UpstreamError.cancelled) { try result.get() }
            #expect(await origin.waitUntil(timeout: .seconds(30)) { $0.responsesAborted == 1 })
        }
    }

    @Test func droppingTheResponseAbortsTheOriginResponse() async throws {
        try await withOrigin { origin, client in
            origin.route("/long.ts", Self.endless)
            do {
                let response = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/long.ts"))
                #expect(response.status == 200)
            }
            #expect(await origin.waitUntil(timeout: .seconds(30)) { $0.responsesAborted == 1 })
        }
    }

    @Test func slowConsumerPausesTheTransferAndGetsEveryByte() async throws {
        let highWatermark = 256 * 1024
        try await withOrigin(configuration: UpstreamConfiguration(bufferHighWatermark: highWatermark)) { origin, client in
            let size = 64 * 1024 * 1024
            origin.route("/big.ts", .generated(size: size))
            let response = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/big.ts"))
            #expect(response.header("Content-Length") == String(size))
            // Not reading: the transfer must pause with a bounded buffer. Once paused it stays
            // paused (nothing more is buffered) until the buffer is read.
            let bound = highWatermark + Transfer.receiveBufferSize(highWatermark: highWatermark)
            #expect(await eventually { response.body.pauseCount >= 1 }, "the transfer never paused")
            #expect(response.body.bufferedByteCount > 0)
            #expect(response.body.bufferedByteCount <= bound)

            // Reading, stopping every 8 MB until the buffer is full again (where the transfer pauses).
            var position = 0
            var intact = true
            var largestBuffer = 0
            var iterator = response.body.makeAsyncIterator()
            while let buffer = try await iterator.next() {
                let chunk = Array(buffer: buffer)
                if intact, chunk != patternBytes(offset: position, count: chunk.count) { intact = false }
                position += chunk.count
                largestBuffer = max(largestBuffer, chunk.count, response.body.bufferedByteCount)
                if position % (8 * 1024 * 1024) < chunk.count, size - position > 2 * bound {
                    #expect(await eventually { response.body.bufferedByteCount >= highWatermark }, "the buffer did not fill at \(position) bytes")
                }
            }
            #expect(position == size)
            #expect(intact)
            #expect(largestBuffer <= bound)
            #expect(response.body.pauseCount > 1)
        }
    }

    /// Fifty at once through a pool of 16 connections: all complete, none over the per-host limit.
    @Test func fiftyConcurrentFetchesAllCompleteIntact() async throws {
        try await withOrigin(configuration: UpstreamConfiguration(maxConnectionsPerHost: 16)) { origin, client in
            for index in 0..<5 {
                origin.route("/seg\(index).ts", .generated(size: 300_000 + index * 77_777, chunk: 32 * 1024))
            }
            let results = try await withThrowingTaskGroup(of: (Int, Int, Bool).self) { group in
                for request in 0..<50 {
                    group.addTask {
                        let index = request % 5
                        let response = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/seg\(index).ts"))
                        let (count, intact) = try await readPattern(response.body)
                        return (index, count, intact && response.status == 200)
                    }
                }
                var all: [(Int, Int, Bool)] = []
                for try await result in group { all.append(result) }
                return all
            }
            #expect(results.count == 50)
            for (index, count, intact) in results {
                #expect(count == 300_000 + index * 77_777)
                #expect(intact)
            }
            #expect(await origin.waitUntil { $0.responsesCompleted == 50 })
            #expect(origin.connectionsAccepted <= 16)
        }
    }
}

@Suite struct UpstreamChurnTests {
    /// Completed, cancelled, dropped and timed-out transfers interleaved: the complete ones stay
    /// intact and no transfer is left running on the curl thread afterwards.
    @Test func mixedCancellationsLeaveNothingRunning() async throws {
        // A separate client with a short first-byte timeout, so that only /late.ts can time out.
        let impatient = try UpstreamClient(configuration: UpstreamConfiguration(firstByteTimeout: .seconds(1)))
        // The others wait as long as a starved test process needs (CI once saw /slow.ts's head
        // take more than the default 10 s in the unit phase's start-up).
        try await withOrigin(configuration: UpstreamConfiguration(firstByteTimeout: .seconds(60), bufferHighWatermark: 64 * 1024)) { origin, client in
            origin.route("/seg.ts", .generated(size: 700_000, chunk: 8 * 1024))
            origin.route("/slow.ts", .generated(size: 50_000_000, chunk: 4 * 1024, delayBetweenChunks: .milliseconds(2)))
            origin.route("/late.ts", .delayedHeaders(.seconds(3), then: .bytes(body: [1])))
            let outcomes = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<60 {
                    group.addTask {
                        switch index % 4 {
                        case 0:
                            let response = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/seg.ts"))
                            let (count, intact) = try await readPattern(response.body)
                            return count == 700_000 && intact ? "complete" : "corrupt"
                        case 1:
                            let response = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/slow.ts"))
                            var iterator = response.body.makeAsyncIterator()
                            for _ in 0..<(index % 7) { _ = try await iterator.next() }
                            response.body.cancel()
                            return "cancelled"
                        case 2:
                            _ = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/slow.ts"))
                            return "dropped"
                        default:
                            do {
                                _ = try await impatient.fetch(UpstreamRequest(url: origin.baseURL + "/late.ts"))
                                return "late head arrived"
                            } catch let error as UpstreamError {
                                return error.isTimeout ? "timed out" : "\(error)"
                            }
                        }
                    }
                }
                var all: [String: Int] = [:]
                for try await outcome in group { all[outcome, default: 0] += 1 }
                return all
            }
            #expect(outcomes == ["complete": 15, "cancelled": 15, "dropped": 15, "timed out": 15])
            let idle = await origin.waitUntil { _ in client.activeTransferCount == 0 && impatient.activeTransferCount == 0 }
            #expect(idle)
            // The origin counts a completion when its last write returns, which can be after the client has read it.
            #expect(await origin.waitUntil { $0.responsesAborted == 45 && $0.responsesCompleted == 15 })
            #expect(origin.responsesAborted == 45)
            #expect(origin.responsesCompleted == 15)
        }
        await impatient.shutdown()
    }
}
