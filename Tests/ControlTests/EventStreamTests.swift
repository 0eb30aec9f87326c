import Control
import Foundation
import Testing

/// `GET /api/events/stream`: records arrive live as Server-Sent Events, filtered by session,
/// replayed after `Last-Event-ID`, with heartbeats; the number of streams is bounded and a shutdown
/// ends them.
@Suite struct EventStreamTests {
    @Test func recordsArriveLiveAsServerSentEvents() async throws {
        try await ControlHarness.with(heartbeat: .milliseconds(300)) { harness in
            let stream = try await EventStreamClient.open(port: harness.control.port, path: "/api/events/stream?session=live1")
            defer { stream.close() }
            #expect(stream.status == 200)
            #expect(stream.headers.first { $0.name.lowercased() == "content-type" }?.value.hasPrefix("text/event-stream") == true)
            try await waitUntil { harness.control.eventStreamCount == 1 }

            _ = try await harness.play("/s/other/vod/ts/master.m3u8")
            let master = try await harness.play("/s/live1/vod/ts/master.m3u8")
            #expect(master.status == 200)
            let event = try #require(try await stream.next(timeout: 10), "no event within 10 s")
            let record = try #require(event.object)
            #expect(record["session"] as? String == "live1", "the other session's record is filtered out")
            #expect(record["path"] as? String == "/s/live1/vod/ts/master.m3u8")
            #expect(record["kind"] as? String == "master")
            #expect(record["status"] as? Int == 200)
            #expect(event.id == (record["id"] as? Int).map(String.init))
            #expect(!event.data.contains("\n"))

            // A second request, a second event, in order.
            let media = try #require(try await harness.uris(of: "/s/live1/vod/ts/master.m3u8").first)
            _ = try await harness.play(media)
            let ids = [try await stream.next(), try await stream.next()].compactMap { $0?.id.flatMap(Int.init) }
            #expect(ids.count == 2)
            #expect(ids == ids.sorted())

            // Heartbeats keep an idle stream open.
            #expect(try await stream.next(timeout: 1) == nil)
            #expect(stream.comments.filter { $0 == "heartbeat" }.count >= 2, "\(stream.comments)")
        }
    }

    @Test func aReconnectingClientGetsWhatItMissedAfterLastEventID() async throws {
        try await ControlHarness.with { harness in
            for _ in 0..<3 { _ = try await harness.play("/s/replay/vod/ts/master.m3u8") }
            try await waitUntil { harness.proxy.control.records(session: "replay").count == 3 }
            let ids = harness.proxy.control.records(session: "replay").map(\.id)

            let stream = try await EventStreamClient.open(
                port: harness.control.port, path: "/api/events/stream?session=replay", headers: [("Last-Event-ID", String(ids[0]))])
            defer { stream.close() }
            let replayed = [try await stream.next(), try await stream.next()].compactMap { $0?.id.flatMap(UInt64.init) }
            #expect(replayed == Array(ids.dropFirst()))
            // Then live, without repeating the replayed ones.
            _ = try await harness.play("/s/replay/vod/ts/master.m3u8")
            let live = try #require(try await stream.next())
            #expect(live.id.flatMap(UInt64.init).map { $0 > ids[2] } == true)
            #expect(try await stream.next(timeout: 0.5) == nil)

            let since = try await EventStreamClient.open(port: harness.control.port, path: "/api/events/stream?since=0&session=replay")
            defer { since.close() }
            var all: [String] = []
            while let event = try await since.next(timeout: 1) { all.append(event.id ?? "") }
            #expect(all.count == 4)

            for bad in ["?since=-1", "?session=no%20such", "?since=x"] {
                let response = try await harness.api.get("/api/events/stream\(bad)")
                #expect(response.status == 400, "\(bad)")
            }
            let badHeader = try await harness.api.get("/api/events/stream", headers: [("Last-Event-ID", "abc")])
            #expect(badHeader.status == 400)
        }
    }

    @Test func streamsAreBoundedAndEndWithTheServer() async throws {
        try await ControlHarness.with(heartbeat: .milliseconds(200), maxEventStreams: 2) { harness in
            let first = try await EventStreamClient.open(port: harness.control.port, path: "/api/events/stream")
            let second = try await EventStreamClient.open(port: harness.control.port, path: "/api/events/stream")
            try await waitUntil { harness.control.eventStreamCount == 2 }
            let third = try await harness.api.get("/api/events/stream")
            #expect(third.status == 503)
            #expect(third.header("retry-after") == "5")
            let metrics = try await harness.api.get("/metrics")
            #expect(metrics.text.contains("hlschaos_event_streams 2"))
            #expect(metrics.text.contains("hlschaos_event_streams_limit 2"))

            // A client that leaves frees its place (noticed at the latest when a heartbeat cannot be written).
            second.close()
            try await waitUntil { harness.control.eventStreamCount == 1 }

            let started = ContinuousClock.now
            await harness.stop()
            #expect(ContinuousClock.now - started < .seconds(4), "an open stream held the shutdown")
            #expect(try await first.waitForEnd(timeout: 2))
            first.close()
        }
    }
}
