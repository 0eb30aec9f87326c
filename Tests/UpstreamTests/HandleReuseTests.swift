import Testing
import TestSupport
@testable import Upstream

/// Easy handles are pooled: a command queued for a transfer that has finished (a late cancel, a
/// late unpause) must not reach the next transfer that got the same handle.
@Suite struct HandleReuseTests {
    @Test(.timeLimit(.minutes(1)))
    func aLateRemoveOrUnpauseOfAFinishedTransferLeavesTheNextTransferOnItsHandleAlone() async throws {
        // A small high watermark: B stops reading its large body until the consumer takes some.
        try await withOrigin(configuration: .init(bufferHighWatermark: 16 * 1024)) { origin, client in
            origin.route("/a.ts", .generated(size: 50_000))
            origin.route("/b.ts", .generated(size: 2_000_000))
            let request = { (path: String) in UpstreamRequest(url: origin.baseURL + path) }

            let a = try Transfer(request: request("/a.ts"), configuration: client.configuration, loop: client.loop)
            let first = try await a.start().get()
            #expect(try await readPattern(first.body) == (50_000, true))

            // B takes A's handle back from the pool and is running (its head arrived; most of its
            // body is still with the origin, so it cannot finish before the commands below).
            let b = try Transfer(request: request("/b.ts"), configuration: client.configuration, loop: client.loop)
            #expect(b.handle == a.handle)
            #expect(client.easyHandlesCreated == 1)
            let second = try await b.start().get()
            #expect(second.status == 200)

            // What A's late cancel and a late unpause queue. Reading B's body queues B's unpause
            // after them, so both are processed while B runs.
            client.loop.enqueue(.unpause(a))
            client.loop.enqueue(.remove(a))
            #expect(try await readPattern(second.body) == (2_000_000, true))
            #expect(client.activeTransferCount == 0)
        }
    }
}

@Suite struct QueuedCancelTests {
    /// Transfers cancelled while they wait for a connection slot (every connection to the host is
    /// busy) must not leave broken handles in the pool: the soak saw every later transfer on such a
    /// handle fail with "curl rejected option 98" (a 502 that never went away).
    @Test(.timeLimit(.minutes(2)))
    func cancellingTransfersQueuedForAConnectionLeavesThePoolHealthy() async throws {
        var configuration = UpstreamConfiguration()
        configuration.maxConnectionsPerHost = 2
        configuration.firstByteTimeout = .seconds(60)
        try await withOrigin(configuration: configuration) { origin, client in
            // Long enough for the queued tasks to start on a loaded machine (whose pool threads
            // can be busy for seconds with CPU-heavy tests), not a bound the test waits out.
            origin.route("/slow.ts", .delayedHeaders(.seconds(20), then: .generated(size: 1000)))
            origin.route("/fast.ts", .generated(size: 1000))
            let slow = UpstreamRequest(url: origin.baseURL + "/slow.ts")
            let fast = UpstreamRequest(url: origin.baseURL + "/fast.ts")
            // Two transfers hold both connections (the origin has their requests)…
            let holders = (0..<2).map { _ in Task { @Sendable in try await client.fetch(slow) } }
            #expect(await origin.waitUntil { $0.requestLog.count == 2 })
            // …while these wait for a slot (they are on the curl thread, the origin has not seen
            // them) and are cancelled there.
            let queued = (0..<6).map { _ in Task { @Sendable in try await client.fetch(slow) } }
            #expect(await eventually { client.activeTransferCount == 8 })
            #expect(origin.requestLog.count == 2, "a queued transfer got a connection: the holders ended too soon")
            for task in queued { task.cancel() }
            for task in queued { _ = try? await task.value }
            for holder in holders { _ = try await readPattern(try await holder.value.body) }
            for attempt in 0..<12 {
                let response = try await client.fetch(fast)
                #expect(response.status == 200, "attempt \(attempt)")
                #expect(try await readPattern(response.body) == (1000, true))
            }
        }
    }
}

@Suite struct FailedTransferHandleTests {
    /// A name that does not resolve fails its transfer; the next transfer, which would have got the
    /// same pooled handle, still reaches its origin (it answered 502 "curl rejected option 98").
    @Test(.timeLimit(.minutes(1)))
    func aTransferAfterAFailedLookupStillWorks() async throws {
        try await withOrigin { origin, client in
            origin.route("/a.ts", .generated(size: 10_000))
            for _ in 0..<3 {
                do {
                    _ = try await client.fetch(UpstreamRequest(url: "http://no-such-host.invalid/x.m3u8"))
                    Issue.record("a made-up name resolved")
                } catch {
                    #expect(!"\(error)".contains("rejected option"), "\(error)")
                }
                let response = try await client.fetch(UpstreamRequest(url: origin.baseURL + "/a.ts"))
                #expect(response.status == 200)
                #expect(try await readPattern(response.body) == (10_000, true))
            }
        }
    }
}
