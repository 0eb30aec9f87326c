import Addressing
import DemoOrigin
import Foundation
import HLS
import BundleFormat
import Recorder
import Replay
import Testing
import TestSupport

/// `hlschaos record` on the demo's LL stream fetches it as an LL player does, and a replay of the
/// bundle answers blocking reloads as the recorded server did. Nothing here is judged by the wall
/// clock: what the recorder asked for is read off the bundle, and the replay is asked at chosen
/// moments of its schedule. It runs in the timing phase all the same (scripts/test.sh): a
/// recorder starved for seconds records few parts and reloads.
@Suite struct LowLatencyRecordingTests {
    /// Records the LL demo (variant 0's media) until `playlistLoads` playlist loads are in the bundle
    /// (every playlist is reloaded about every 0.4 s), not for a fixed time: a test process starved
    /// for seconds still gets the recording it checks. At most a minute.
    /// The bundle is written in `folder`, which the test keeps until it has read the bodies.
    static func recordLL(playlistLoads: Int, in folder: TemporaryFolder) async throws -> (RecordingBundle, DemoOrigin, String) {
        let origin = try DemoOrigin()
        return try await withStarted({ try await DemoOriginServer.start(origin: origin) }, stop: { try? await $0.shutdown() }) { server in
            let entry = server.baseURL + "/ll/master.m3u8"
            let settings = StreamRecorder.Settings(entry: entry, duration: .seconds(60), variants: try .parse("bottom"))
            let (_, bundle, _) = try await StreamRecorderTests.record(settings, in: folder) { recorder in
                _ = await eventually(timeout: .seconds(60)) { recorder.tally.counts.playlistLoads >= playlistLoads }
                recorder.stop("enough playlist loads for the test")
            }
            try await server.shutdown()
            return (bundle, origin, server.baseURL)
        }
    }

    @Test func anLLStreamIsRecordedWithBlockingReloadsPartsAndHints() async throws {
        try await withTemporaryFolder("recording") { folder in
            let (bundle, origin, base) = try await Self.recordLL(playlistLoads: 40, in: folder)
            let playlist = base + "/ll/v0/index.m3u8"
            let reloads = bundle.exchanges.filter { $0.url.hasPrefix(playlist) }
            let blocking = reloads.filter { $0.url.contains("_HLS_msn=") }
            #expect(blocking.count >= 5, "blocking reloads of variant 0: \(blocking.count) of \(reloads.count)")
            #expect(blocking.allSatisfy { $0.url.contains("&_HLS_part=") && $0.kind == "media" })
            // Each blocking reload asked for the part after the last one the answer before it listed.
            let answered = reloads.filter { $0.status == 200 && $0.ending == .complete }
            for (earlier, later) in zip(answered, answered.dropFirst()) where later.url.contains("_HLS_msn=") {
                let previous = try Playlist(bytes: try bundle.body(of: earlier))
                let asked = try #require(previous.nextPartToAskFor)
                #expect(later.url.hasSuffix("?_HLS_msn=\(asked.msn)&_HLS_part=\(asked.part)"), "\(later.url) after \(previous.edge)")
                #expect(try Playlist(bytes: try bundle.body(of: later)).edge.holds(msn: asked.msn, part: asked.part), "held until \(asked) was listed")
            }

            let parts = bundle.exchanges.filter { $0.kind == "part" && $0.url.hasPrefix(base + "/ll/v0/") }
            #expect(parts.count >= 8, "parts of variant 0: \(parts.count)")
            for part in parts {
                #expect(part.status == 200 && part.ending == .complete, "\(part.url)")
                let path = String(part.url.dropFirst(base.count))
                #expect(try bundle.body(of: part) == StreamRecorderTests.originBody(origin, path), "\(path): the origin's bytes")
            }
            // A part asked for through a preload hint is held by the origin until it is published.
            #expect(parts.contains { ($0.timings.firstByte ?? 0) > 0.05 }, "no part was asked for before it was published")
            #expect(bundle.exchanges.contains { $0.kind == "segment" && $0.url.hasPrefix(base + "/ll/v0/") }, "whole segments too")
        }
    }

    @Test func aReplayHoldsABlockingReloadUntilARecordedVersionHoldsTheAskedPart() async throws {
        try await withTemporaryFolder("recording") { folder in
            let (bundle, _, base) = try await Self.recordLL(playlistLoads: 70, in: folder)
            let replay = try ReplayOrigin(bundle: bundle)
            let path = "/ll/v0/index.m3u8"
            let versions = try bundle.exchanges.filter { $0.url.hasPrefix(base + path) && $0.status == 200 && $0.ending == .complete }
                .map { ($0, try Playlist(bytes: try bundle.body(of: $0))) }
            let first = try #require(versions.first?.1.edge)
            let last = try #require(versions.last?.1.edge)
            #expect(last.lastComplete > first.lastComplete, "the recording spans more than a segment")

            // When the replay answers a blocking reload with a recorded version: its arrival on the
            // schedule (replay seconds), then its recorded time to first byte.
            func firstArrival(holding msn: Int, part: Int) throws -> (moment: Double, firstByte: Double) {
                let holding = versions.filter { $0.1.edge.holds(msn: msn, part: part) }.map(\.0)
                let exchange = try #require(holding.min { $0.receivedAt < $1.receivedAt }, "no version holds part \(part) of \(msn)")
                return (exchange.receivedAt, exchange.timings.firstByte ?? 0)
            }

            let start = ContinuousClock.now
            _ = replay.answer(method: "GET", target: "/ll/master.m3u8", headers: [], at: start)  // starts the schedule
            func ask(msn: Int, part: Int, after seconds: Double = 0) throws -> (Playlist, Double, ReplayAnswer) {
                let answer = replay.answer(method: "GET", target: "\(path)?_HLS_msn=\(msn)&_HLS_part=\(part)&_HLS_skip=YES", headers: [],
                                           at: start.advanced(by: .seconds(seconds)))
                #expect(answer.status == 200)
                return (try Playlist(bytes: answer.body), answer.headAfter, answer)
            }
            // Asked at the start of the schedule, a part is held until the first version that lists
            // it arrived (for the first version's own part too: it arrived a moment into the recording).
            for msn in [last.lastComplete, first.lastComplete] {
                let (held, wait, _) = try ask(msn: msn, part: 0)
                #expect(held.edge.holds(msn: msn, part: 0), "answered with \(held.edge) for part 0 of \(msn)")
                let arrival = try firstArrival(holding: msn, part: 0)
                #expect(abs(wait - arrival.moment - arrival.firstByte) < 0.01, "held \(wait) s for a version that arrived at \(arrival.moment) s")
            }
            // Asked once the last version has arrived, a part listed already is answered at once with
            // the version in effect (after its recorded time to first byte).
            let latest = try #require(versions.max { $0.0.receivedAt < $1.0.receivedAt })
            let (now, noWait, answered) = try ask(msn: first.lastComplete, part: 0, after: latest.0.receivedAt + 0.000_001)
            #expect(now.edge == latest.1.edge, "the latest version: \(now.edge), not \(latest.1.edge)")
            let served = try #require(answered.exchange.map { bundle.exchanges[$0] })
            #expect(abs(noWait - (served.timings.firstByte ?? 0)) < 0.001, "\(noWait) s")
            // Past the end of the recording: the latest version, after three target durations (6 s).
            let (_, endWait, _) = try ask(msn: last.lastComplete + 5, part: 0)
            #expect(endWait >= 5.9 && endWait < 7, "\(endWait)")
        }
    }
}
