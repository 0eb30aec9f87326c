import Foundation
import HLS
import BundleFormat
import Replay
import Testing
import TestSupport

/// The replay origin over real HTTP on loopback: what a client gets for a recorded bundle.
/// Timings over the network are checked with lower bounds, and upper bounds a loaded two-core
/// machine keeps; what the schedule serves at a given instant is checked without the network
/// (`ReplayOrigin.answer(at:)`).
@Suite(.serialized) struct ReplayOriginTests {
    // MARK: - VOD: bytes, hosts, order, failures

    @Test(arguments: [false, true])
    func aVODIsServedAsRecordedWithOtherHostsPointedHere(archive: Bool) async throws {
        try await withTemporaryFolder("replay") { folder in
            let bundle = try ReplayFixtures.vod(archive: archive, in: folder)
            try await ReplayFixtures.with(bundle) { server in
                #expect(!server.origin.isLive)
                #expect(server.origin.entryPath == "/vod/master.m3u8")

                let master = try await server.get("/vod/master.m3u8")
                #expect(master.status == 200)
                #expect(master.text.contains("\n/_host/media.test/vod/v0/index.m3u8\n"), "\(master.text)")
                #expect(!master.text.contains("http://media.test"), "absolute URIs on recorded hosts lead back to the replay origin")
                #expect(master.header("content-type") == "application/vnd.apple.mpegurl")
                #expect(master.header("x-hlschaos-replay")?.hasPrefix("line 1,") == true)

                let media = try await server.get("/_host/media.test/vod/v0/index.m3u8")
                #expect(media.status == 200)
                #expect(media.text == ReplayFixtures.vodMedia, "relative URIs keep their bytes")

                // The segment was recorded with a token; asked without it (or with another) it is found by path.
                for target in ["/_host/media.test/vod/v0/seg-0.ts", "/_host/media.test/vod/v0/seg-0.ts?token=new", "/_host/media.test/vod/v0/seg-0.ts?token=abc"] {
                    let segment = try await server.get(target)
                    #expect(segment.status == 200 && segment.body == ReplayFixtures.segmentBytes(0), "\(target)")
                    #expect(segment.header("content-length") == "3000")
                }
                // A path of the only other host, asked without its /_host/ prefix, is found too.
                #expect(try await server.get("/vod/v0/seg-0.ts").body == ReplayFixtures.segmentBytes(0))

                // A range of a body recorded whole.
                let range = try await server.get("/_host/media.test/vod/v0/seg-0.ts", headers: [("Range", "bytes=10-19")])
                #expect(range.status == 206)
                #expect(range.body == Array(ReplayFixtures.segmentBytes(0)[10...19]))
                #expect(range.header("content-range") == "bytes 10-19/3000")
                let outside = try await server.get("/_host/media.test/vod/v0/seg-0.ts", headers: [("Range", "bytes=5000-")])
                #expect(outside.status == 416)
            }
        }
    }

    @Test func recordedFailuresRecurInOrderThenTheLastAnswerRepeats() async throws {
        try await withTemporaryFolder("replay") { folder in
            try await ReplayFixtures.with(try ReplayFixtures.vod(in: folder)) { server in
                let target = "/_host/media.test/vod/v0/seg-503.ts"
                let first = try await server.get(target)
                #expect(first.status == 503)
                #expect(first.header("retry-after") == "2")
                #expect(first.text == "try again later\n")
                let second = try await server.get(target)
                #expect(second.status == 200 && second.body == ReplayFixtures.segmentBytes(1))
                let third = try await server.get(target)
                #expect(third.status == 200 && third.body == ReplayFixtures.segmentBytes(1))

                // Keep-alive and pipelining: three requests in one write on one connection, answered in order.
                let port = server.port
                let pipelined = try await RawHTTP.run {
                    let connection = try RawHTTPConnection(port: port, readTimeout: 30)
                    defer { connection.close() }
                    return try connection.pipeline(["/vod/master.m3u8", "/_host/media.test/vod/v0/seg-0.ts", "/vod/master.m3u8?again"])
                }
                #expect(pipelined.map(\.status) == [200, 200, 200])
                #expect(pipelined[1].body == ReplayFixtures.segmentBytes(0))
                #expect(pipelined[2].text.hasPrefix("#EXTM3U"))
                // HEAD: the head of the GET answer, no body.
                let head = try await RawHTTP.get(port: port, "/_host/media.test/vod/v0/seg-0.ts", method: "HEAD")
                #expect(head.status == 200 && head.header("content-length") == "3000" && head.body.isEmpty)
            }
        }
    }

    @Test func aSlowAnswerIsPacedAsRecordedAndFasterWithSpeed() async throws {
        try await withTemporaryFolder("replay") { folder in
            let bundle = try ReplayFixtures.vod(in: folder)
            let target = "/_host/media.test/vod/v0/slow.ts"
            // Recorded: first byte at 0.5 s, last at 1.2 s; --speed 2 halves both.
            let recorded = try ReplayOrigin(bundle: try RecordingBundle.open(bundle.path)).answer(method: "GET", target: target, headers: [])
            #expect(recorded.headAfter == 0.5 && recorded.endAfter == 1.2)
            let halved = try ReplayOrigin(bundle: try RecordingBundle.open(bundle.path), options: ReplayOptions(speed: 2))
                .answer(method: "GET", target: target, headers: [])
            #expect(halved.headAfter == 0.25 && halved.endAfter == 0.6)

            // Over the network the pacing is kept: not sooner (nor minutes later).
            try await ReplayFixtures.with(bundle) { server in
                let slow = try await server.get(target)
                await server.shutdown()
                #expect(slow.status == 200 && slow.body == ReplayFixtures.segmentBytes(2, size: 40_000))
                #expect(slow.secondsToHead >= 0.45 && slow.secondsToHead < 10, "head after \(slow.secondsToHead) s")
                #expect(slow.secondsTotal >= 1.15 && slow.secondsTotal < 10, "done after \(slow.secondsTotal) s")

                try await ReplayFixtures.with(bundle, ReplayOptions(speed: 2)) { fast in
                    let twice = try await fast.get(target)
                    await fast.shutdown()
                    #expect(twice.body == slow.body)
                    #expect(twice.secondsToHead >= 0.22 && twice.secondsToHead < 10, "head after \(twice.secondsToHead) s")
                    #expect(twice.secondsTotal >= 0.57 && twice.secondsTotal < 10, "done after \(twice.secondsTotal) s")
                }
            }
        }
    }

    @Test func truncatedResetAndTimedOutAnswersEndAsRecorded() async throws {
        try await withTemporaryFolder("replay") { folder in
            try await ReplayFixtures.with(try ReplayFixtures.vod(in: folder)) { server in
                let cut = try await server.get("/_host/media.test/vod/v0/cut.ts")
                #expect(cut.status == 200)
                #expect(cut.ending == .shortRead(expected: 2000))
                #expect(cut.body == Array(ReplayFixtures.segmentBytes(3).prefix(800)))

                await #expect(throws: RawHTTPConnection.Failure.resetBeforeHead) {
                    _ = try await server.get("/_host/media.test/vod/v0/reset.ts")
                }

                let start = Date()
                await #expect(throws: RawHTTPConnection.Failure.closedBeforeHead) {
                    _ = try await server.get("/_host/media.test/vod/v0/hang.ts")
                }
                let held = Date().timeIntervalSince(start)
                // Recorded 1 s; a hold that never ended would be the client's read timeout instead.
                #expect(held >= 0.95 && held < 20, "held for \(held) s (recorded 1 s)")

                // The connection breaks; the next request on a new one is served.
                #expect(try await server.get("/vod/master.m3u8").status == 200)
            }
        }
    }

    @Test func shutdownEndsIdleAndHeldConnectionsAtOnce() async throws {
        try await withTemporaryFolder("replay") { folder in
            // A request held for a minute, and the only one recorded: its arrival starts the schedule.
            let bundle = try ReplayFixtures.bundle(in: folder) { writer in
                try writer.append(Exchange(
                    at: 0, url: "http://cdn.test/hang.ts", status: nil, ending: .timeout, error: "recorded timeout",
                    timings: .init(connect: 0, firstByte: nil, total: 60), kind: "segment"))
            }
            try await ReplayFixtures.with(bundle) { server in
                let port = server.port
                let held = Task { try await RawHTTP.get(port: port, "/hang.ts", readTimeout: 90) }
                let arrived = await eventually { server.origin.hasStarted }
                try #require(arrived, "the held request never reached the replay origin")
                let idle = try RawHTTPConnection(port: port, readTimeout: 30)
                defer { idle.close() }
                let answered = try await RawHTTP.run { try idle.request("GET", "/not-recorded.ts") }
                #expect(answered.status == 404, "answered, kept alive, then idle")

                // Shutdown must not wait for the held answer (a minute) nor for the idle client (ever).
                let endedInTime = await withTaskGroup(of: Bool.self) { group in
                    group.addTask { await server.shutdown(); return true }
                    group.addTask { try? await Task.sleep(for: .seconds(20)); return false }  // the bound under test
                    let first = await group.next() ?? false
                    if !first { idle.close() }  // so that the shutdown can end, when the hold does
                    group.cancelAll()
                    return first
                }
                #expect(endedInTime, "shutdown waited over 20 s for a request held 60 s or for an idle connection")
                switch await held.result {
                case .success(let response): Issue.record("the held request was answered: \(response.status)")
                case .failure(let error): #expect([.closedBeforeHead, .resetBeforeHead].contains(error as? RawHTTPConnection.Failure), "\(error)")
                }
            }
        }
    }

    @Test func aRequestTheBundleCannotAnswerGets404SayingWhatIsMissing() async throws {
        try await withTemporaryFolder("replay") { folder in
            try await ReplayFixtures.with(try ReplayFixtures.vod(in: folder)) { server in
                let missing = try await server.get("/_host/media.test/vod/v0/seg-9.ts")
                #expect(missing.status == 404)
                #expect(missing.header("content-type")?.hasPrefix("text/plain") == true)
                let text = missing.text
                #expect(text.contains("not in the recording: GET http://media.test/vod/v0/seg-9.ts"), "\(text)")
                #expect(text.contains("Nearest recorded URLs:") && text.contains("http://media.test/vod/v0/seg-0.ts?token=abc"), "\(text)")
                #expect(text.contains("served at /_host/media.test/vod/v0/"), "\(text)")
                #expect(text.contains("The entry is http://cdn.test/vod/master.m3u8, served at /vod/master.m3u8"), "\(text)")

                let bodiless = try ReplayFixtures.bundle(in: folder) { writer in
                    try writer.append(Exchange(at: 0, url: "http://cdn.test/a.ts", status: 200, headers: [.init("Content-Length", "1234")]))
                }
                let noBody = try await ReplayFixtures.with(bodiless) { try await $0.get("/a.ts") }
                #expect(noBody.status == 404 && noBody.text.contains("was recorded (HTTP 200, 1234 bytes) without its body"), "\(noBody.text)")

                let ranged = try await server.get("/vod/nothing.m3u8")
                #expect(ranged.status == 404 && ranged.text.contains("http://cdn.test/vod/nothing.m3u8"))

                // A segment past the end of a live recording: the nearest are the last ones recorded.
                try await ReplayFixtures.with(try ReplayFixtures.live(versions: 3, in: folder)) { live in
                    let late = try await live.get("/_host/media.test/seg/seg-999.ts")
                    await live.shutdown()
                    let listed = late.text.split(separator: "\n").filter { $0.hasPrefix("  http") }.map { $0.split(separator: " ")[0] }
                    #expect(listed == ["http://media.test/seg/seg-104.ts", "http://media.test/seg/seg-103.ts", "http://media.test/seg/seg-102.ts",
                                       "http://media.test/seg/seg-101.ts", "http://media.test/seg/seg-100.ts"], "\(late.text)")
                }
            }
        }
    }

    @Test func aVODPlaylistGivesItsFinalVersionWithItsRecordedFailuresInOrder() async throws {
        try await withTemporaryFolder("replay") { folder in
            let growing = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:EVENT\n#EXTINF:2,\na.ts\n"
            let final = growing + "#EXTINF:2,\nb.ts\n#EXT-X-ENDLIST\n"
            let bundle = try ReplayFixtures.bundle(in: folder) { writer in
                try writer.append(Exchange(at: 0, url: "http://cdn.test/index.m3u8", status: 200, body: try writer.storeBody(Array(growing.utf8)), kind: "media"))
                try writer.append(Exchange(at: 2, url: "http://cdn.test/index.m3u8", status: 503, kind: "media"))
                try writer.append(Exchange(at: 4, url: "http://cdn.test/index.m3u8", status: 200, body: try writer.storeBody(Array(final.utf8)), kind: "media"))
            }
            try await ReplayFixtures.with(bundle) { server in
                #expect(!server.origin.isLive, "every media playlist ended")
                var answers: [String] = []
                for _ in 0..<4 {
                    let response = try await server.get("/index.m3u8")
                    answers.append(response.status == 200 ? (response.text == final ? "final" : response.text) : String(response.status))
                }
                #expect(answers == ["final", "503", "final", "final"])
            }
        }
    }

    @Test func byteRangesAreMatchedAsRecordedOrCutFromALargerRecordedRange() async throws {
        try await withTemporaryFolder("replay") { folder in
            let file = ReplayFixtures.segmentBytes(7, size: 1_000)
            let bundle = try ReplayFixtures.bundle(in: folder) { writer in
                try writer.append(Exchange(
                    at: 0, url: "http://cdn.test/all.ts", range: "bytes=0-499", status: 206,
                    headers: [.init("Content-Range", "bytes 0-499/1000")], body: try writer.storeBody(Array(file[0..<500]))))
                try writer.append(Exchange(
                    at: 1, url: "http://cdn.test/all.ts", range: "bytes=500-999", status: 206,
                    headers: [.init("Content-Range", "bytes 500-999/1000")], body: try writer.storeBody(Array(file[500..<1000]))))
            }
            try await ReplayFixtures.with(bundle) { server in
                let recorded = try await server.get("/all.ts", headers: [("Range", "bytes=500-999")])
                #expect(recorded.status == 206 && recorded.body == Array(file[500..<1000]))
                #expect(recorded.header("content-range") == "bytes 500-999/1000")
                let inside = try await server.get("/all.ts", headers: [("Range", "bytes=100-199")])
                #expect(inside.status == 206 && inside.body == Array(file[100...199]))
                #expect(inside.header("content-range") == "bytes 100-199/1000")
                let tail = try await server.get("/all.ts", headers: [("Range", "bytes=900-")])
                #expect(tail.status == 206 && tail.body == Array(file[900...]))
                let across = try await server.get("/all.ts", headers: [("Range", "bytes=400-599")])
                #expect(across.status == 404 && across.text.contains("the byte range bytes=400-599 was not recorded"), "\(across.text)")
                let whole = try await server.get("/all.ts")
                #expect(whole.status == 404 && whole.text.contains("recorded only as byte ranges (bytes=0-499, bytes=500-999)"), "\(whole.text)")
            }
        }
    }

    // MARK: - Live: the schedule, --from, --speed, --loop

    /// A playlist read over HTTP, and when: the request left after `sent` seconds and its answer
    /// was back after `received` seconds (since `reference`). Where in the schedule the origin
    /// answered lies between the two, however loaded the machine.
    struct Reading {
        var sent: Double
        var received: Double
        var msn: Int
        var text: String
    }

    /// Reads the playlist every 0.25 s until `seconds` after `reference`.
    static func readings(_ server: ReplayServer, _ target: String, since reference: ContinuousClock.Instant, for seconds: Double) async throws -> [Reading] {
        func elapsed() -> Double { (ContinuousClock.now - reference) / .seconds(1) }
        var seen: [Reading] = []
        while elapsed() < seconds {
            let sent = elapsed()
            let response = try await server.get(target)
            let msn = try #require(ReplayFixtures.mediaSequence(response.text))
            seen.append(Reading(sent: sent, received: elapsed(), msn: msn, text: response.text))
            try await Task.sleep(for: .milliseconds(250))  // the sampling rate of the schedule under test, not a wait
        }
        return seen
    }

    /// The MSNs a live recording (version n at n seconds of the schedule, from `first`, ending at
    /// `last`) may serve to a request sent `sent` and answered `received` schedule-seconds after
    /// the schedule started. `lead` widens the range by the schedule time that may have passed
    /// before the reference instant (the request that started it was in flight).
    static func allowedMSNs(_ reading: Reading, first: Int, last: Int, rate: Double = 1, lead: Double = 0) -> ClosedRange<Int> {
        let low = first + Int((max(reading.sent - lead, 0) * rate).rounded(.down))
        let high = first + Int((reading.received * rate).rounded(.down)) + 1
        return min(low, last)...min(high, last)
    }

    @Test func aLiveRecordingAdvancesOnItsRecordedSchedule() async throws {
        try await withTemporaryFolder("replay") { folder in
            try await ReplayFixtures.with(try ReplayFixtures.live(versions: 6, interval: 1, in: folder)) { server in
                #expect(server.origin.isLive)
                let reference = ContinuousClock.now
                let master = try await server.get("/live/master.m3u8")  // the schedule starts here
                let lead = (ContinuousClock.now - reference) / .seconds(1)
                #expect(master.status == 200)
                let seen = try await Self.readings(server, "/live/v0/index.m3u8", since: reference, for: 4.6)
                let msns = seen.map(\.msn)
                #expect(msns.first.map { Self.allowedMSNs(seen[0], first: 100, last: 105, lead: lead).contains($0) } == true, "\(msns)")
                #expect(msns == msns.sorted(), "never goes back: \(msns)")
                // Version n arrived at n seconds (10 ms early).
                for reading in seen {
                    let allowed = Self.allowedMSNs(reading, first: 100, last: 105, lead: lead)
                    #expect(allowed.contains(reading.msn), "sent at \(reading.sent) s, answered by \(reading.received) s: MSN \(reading.msn), expected \(allowed)")
                }
                #expect(msns.last! > msns.first!, "the playlist advanced: \(msns)")
                // Segments on the other host are pointed here and served byte for byte.
                let text = try #require(seen.last?.text)
                #expect(text.contains("/_host/media.test/seg/seg-\(msns.last!).ts"), "\(text)")
                let segment = try await server.get("/_host/media.test/seg/seg-\(msns.last!).ts")
                #expect(segment.body == ReplayFixtures.segmentBytes(msns.last!))

                // After the end (the recording lasts 6 s): the last version stays.
                let late = server.origin.answer(method: "GET", target: "/live/v0/index.m3u8", headers: [], at: .now + .seconds(60))
                #expect(ReplayFixtures.mediaSequence(String(decoding: late.body, as: UTF8.self)) == 105)
            }
        }
    }

    @Test func fromAndSpeedMoveTheSchedule() async throws {
        try await withTemporaryFolder("replay") { folder in
            let bundle = try ReplayFixtures.live(versions: 8, interval: 1, in: folder)
            try await ReplayFixtures.with(bundle, ReplayOptions(from: 3, speed: 2)) { server in
                // The first reading starts the schedule: the others are timed from its answer.
                let seen = try await Self.readings(server, "/live/v0/index.m3u8", since: .now, for: 1.6)
                #expect(seen.first?.msn == 103, "--from 3 starts at the version of second 3: \(seen.map(\.msn))")
                let started = try #require(seen.first)
                for reading in seen.dropFirst() {
                    let fromStart = Reading(sent: reading.sent - started.received, received: reading.received - started.sent, msn: reading.msn, text: "")
                    let allowed = Self.allowedMSNs(fromStart, first: 103, last: 107, rate: 2)
                    #expect(allowed.contains(reading.msn), "MSN \(reading.msn), expected \(allowed) at 2×")
                }
                // Without the network: at 2× the version of second 3 + 2t is served t seconds in.
                let origin = try ReplayOrigin(bundle: try RecordingBundle.open(bundle.path), options: ReplayOptions(from: 3, speed: 2))
                let start = ContinuousClock.now
                let msns = [0.0, 0.6, 1.1, 1.6, 10].map { seconds in
                    ReplayFixtures.mediaSequence(String(decoding: origin.answer(
                        method: "GET", target: "/live/v0/index.m3u8", headers: [], at: start + .milliseconds(Int64(seconds * 1000))).body, as: UTF8.self))
                }
                #expect(msns == [103, 104, 105, 106, 107])
            }
        }
    }

    /// Without the network: the playlist as served at given instants of the schedule.
    @Test func aLoopingLiveRecordingGoesOnWithADiscontinuity() async throws {
        try await withTemporaryFolder("replay") { folder in
            // Versions at 0, 0.5, 1, 1.5 s; the recording ends at 2 s. Window 100…102 to 103…105.
            let bundle = try ReplayFixtures.live(versions: 4, interval: 0.5, in: folder)
            let origin = try ReplayOrigin(bundle: try RecordingBundle.open(bundle.path), options: ReplayOptions(loop: true))
            let start = ContinuousClock.now
            func playlist(after seconds: Double) throws -> Playlist {
                let answer = origin.answer(method: "GET", target: "/live/v0/index.m3u8", headers: [], at: start + .milliseconds(Int64(seconds * 1000)))
                #expect(answer.status == 200)
                return try Playlist(bytes: answer.body)
            }
            let seen = try stride(from: 0.05, through: 6.3, by: 0.1).map { (at: $0, playlist: try playlist(after: $0)) }
            let msns = seen.map(\.playlist.mediaSequence)
            #expect(msns == msns.sorted(), "the media sequence never goes back: \(msns)")
            #expect(Set(msns) == Set(100...103).union(106...109).union(112...115).union([118]), "\(msns)")

            // Pass 1 has no discontinuity.
            let last = try playlist(after: 1.7)
            #expect(last.mediaSequence == 103 && last.discontinuitySequence == 0 && !last.segments.contains { $0.discontinuity }, "\(last.text)")
            // Pass 2 continues after MSN 105: its first window is 106…108, the first segment marked as a
            // discontinuity (the header still counts none before it)…
            let wrap = try playlist(after: 2.2)
            #expect(wrap.mediaSequence == 106, "\(wrap.text)")
            #expect(wrap.discontinuitySequence == 0, "\(wrap.text)")
            #expect(wrap.segments.first?.discontinuity == true, "\(wrap.text)")
            #expect(wrap.segments.allSatisfy { $0.discontinuitySequence == 1 }, "\(wrap.text)")
            // …and once that segment has left the window, the header counts it.
            let after = try playlist(after: 2.7)
            #expect(after.mediaSequence == 107 && after.discontinuitySequence == 1, "\(after.text)")
            #expect(!after.segments.contains { $0.discontinuity }, "\(after.text)")
            // Pass 3: a second discontinuity.
            let third = try playlist(after: 4.2)
            #expect(third.mediaSequence == 112 && third.segments.first?.discontinuity == true, "\(third.text)")
            #expect(third.segments.allSatisfy { $0.discontinuitySequence == 2 }, "\(third.text)")
            // Dates move on with the passes: 6 s per pass (6 one-second segments).
            let firstDate = try #require(seen[0].playlist.segments.first?.programDateTime)
            let laterDate = try #require(third.segments.first?.programDateTime)
            #expect(abs(laterDate.timeIntervalSince(firstDate) - Double(third.mediaSequence - 100)) < 0.01)
            // The segments are the recorded ones, over HTTP too.
            let uri = try #require(third.segments.first?.uri)
            let recorded = ReplayFixtures.segmentBytes(100 + (third.mediaSequence - 100) % 6)
            #expect(origin.answer(method: "GET", target: uri, headers: [], at: start + .seconds(5)).body == recorded)
            try await ReplayFixtures.with(bundle, ReplayOptions(loop: true)) { server in
                let served = try await server.get(uri).body
                #expect(served == recorded)
            }
        }
    }

    @Test func eachPassReplaysTheRecordedFailuresAgain() throws {
        try withTemporaryFolder("replay") { folder in
            // Without the network: answers for given instants.
            let bundle = try ReplayFixtures.live(versions: 4, interval: 0.5, in: folder) { writer in
                try writer.append(Exchange(at: 0.7, url: "http://media.test/seg/flaky.ts", status: 503))
                try writer.append(Exchange(at: 0.8, url: "http://media.test/seg/flaky.ts", status: 200, body: try writer.storeBody([1, 2, 3])))
            }
            let origin = try ReplayOrigin(bundle: try RecordingBundle.open(bundle.path), options: ReplayOptions(loop: true))
            let start = ContinuousClock.now
            func status(after seconds: Double) -> Int? {
                origin.answer(method: "GET", target: "/_host/media.test/seg/flaky.ts", headers: [],
                              at: start + .milliseconds(Int64(seconds * 1000))).status
            }
            _ = origin.answer(method: "GET", target: "/live/master.m3u8", headers: [], at: start)
            #expect([status(after: 0.1), status(after: 0.2), status(after: 0.3)] == [503, 200, 200])
            #expect([status(after: 2.1), status(after: 2.2)] == [503, 200], "the second pass starts at 2 s")
            #expect(origin.position(at: start + .milliseconds(4_500))! == (0.5, 2))
        }
    }

    @Test func optionsAreParsedOrRefusedInWords() throws {
        try withTemporaryFolder("replay") { folder in
            #expect(try ReplayOptions.parseOffset("12m") == 720)
            #expect(try ReplayOptions.parseOffset("1h5m30s") == 3930)
            #expect(try ReplayOptions.parseOffset("90s") == 90)
            #expect(try ReplayOptions.parseOffset("1.5s") == 1.5)
            #expect(try ReplayOptions.parseOffset("500ms") == 0.5)
            #expect(try ReplayOptions.parseOffset("12:30") == 750)
            #expect(try ReplayOptions.parseOffset("1:02:03") == 3723)
            #expect(try ReplayOptions.parseOffset("45") == 45)
            for bad in ["", "12x", "m", "1:75", "5s3m", "-3s", "1.2.3"] {
                #expect(throws: ReplayError.self, "\(bad)") { try ReplayOptions.parseOffset(bad) }
            }
            #expect(try ReplayOptions.parseSpeed("2") == 2)
            #expect(try ReplayOptions.parseSpeed("0.5x") == 0.5)
            #expect(throws: ReplayError.self) { try ReplayOptions.parseSpeed("0") }
            #expect(throws: ReplayError.self) { try ReplayOptions.parseSpeed("fast") }
            #expect(throws: ReplayError.self) { try ReplayOptions.parseSpeed("1000") }

            let empty = try RecordingBundle.open(try ReplayFixtures.bundle(in: folder) { _ in }.path)
            #expect { try ReplayOrigin(bundle: empty) } throws: {
                ($0 as? ReplayError)?.description.hasSuffix("holds no http(s) exchange: there is nothing to replay") == true
            }
            let bundle = try RecordingBundle.open(try ReplayFixtures.live(versions: 3, in: folder).path)
            #expect { try ReplayOrigin(bundle: bundle, options: ReplayOptions(from: 600)) } throws: {
                ($0 as? ReplayError)?.description == "--from 10m 0s is past the end of the recording, which lasts 3s"
            }
        }
    }
}
