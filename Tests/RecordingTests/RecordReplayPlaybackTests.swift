import Addressing
import DemoOrigin
import Foundation
import HLS
import Players
import Proxy
import RuleLoading
import Records
import BundleFormat
import Recorder
import Replay
import Testing
import TestSupport
import Upstream

/// The whole loop with real players: record a stream (or what a device fetched through the proxy),
/// take the origin away, replay the bundle behind a fresh proxy, and check that players see what
/// was recorded — the same media sequence numbers in order, the same bytes, the same schedule, the
/// same failures.
@Suite(.serialized) struct RecordReplayPlaybackTests {
    static let ffmpeg = ProcessRunner.which("ffmpeg") != nil
    static let chromium = ProcessRunner.which("chromedriver") != nil

    /// Segment requests of a session as the proxy recorded them: (path of the variant or rendition, MSN, status).
    /// In the order the player asked for them: records are kept in the order their responses ended,
    /// and ffmpeg fetches the next segment while it reads one (`http_multiple`), so a segment asked
    /// for later can end first.
    static func segments(_ proxy: ProxyServer, session: String) -> [RequestRecord] {
        proxy.control.records(session: session).filter { $0.kind == .segment && $0.msn != nil }.sorted(by: RequestRecord.chronological)
    }

    /// The path of a URL (what a replay serves it under when the host is the entry's).
    static func path(_ url: String) -> String { URLComponents(string: url)?.percentEncodedPath ?? url }

    @Test(.enabled(if: ffmpeg && chromium, "needs ffmpeg, chromium and chromedriver (scripts/install-deps.sh test)"))
    func aLiveRecordingReplaysWithTheSameSequenceBytesAndReloadSchedule() async throws {
        try await withTemporaryFolder("recording") { folder in
            // 1. Record 40 s of the demo's live stream, every variant, then take the origin away.
            try await withStarted({ try await DemoOriginServer.start(origin: DemoOrigin()) }, stop: { try? await $0.shutdown() }) { demo in
                let settings = StreamRecorder.Settings(entry: demo.baseURL + "/live/ts/master.m3u8", duration: .seconds(40))
                let (_, recorded, _) = try await StreamRecorderTests.record(settings, in: folder)
                try await demo.shutdown()
                let recordedBodies = Dictionary(
                    recorded.exchanges.filter { $0.kind == "segment" && $0.status == 200 && $0.ending == .complete }
                        .compactMap { exchange in exchange.body.map { (Self.path(exchange.url), $0.sha256) } },
                    uniquingKeysWith: { first, _ in first })
                #expect(recordedBodies.count > 20, "segments recorded: \(recordedBodies.count)")

                // 2. Replay it behind a proxy that records what the players get.
                let got = folder.url("got")
                try await ReplayThroughProxyTests.Stack.with(URL(fileURLWithPath: recorded.location), configure: {
                    $0.recordPath = got.path
                }) { stack in
                    #expect(stack.replay.origin.isLive)
                    let entry = "http://127.0.0.1:\(stack.proxy.port)"
                    let replayPort = stack.replay.port
                    let work = folder.url("players")
                    async let ffmpegReport = FFmpegDriver(readTimeout: 10).play(PlayRequest(
                        url: entry + "/s/ffmpeg" + stack.replay.origin.entryPath, timeout: 25, live: true,
                        workDirectory: work.appendingPathComponent("ffmpeg")))
                    async let hlsjsReport = BrowserDriver.hlsjs.play(PlayRequest(
                        url: entry + "/s/hlsjs" + stack.replay.origin.entryPath, timeout: 25, live: true,
                        workDirectory: work.appendingPathComponent("hlsjs")))
                    // The schedule, read off the replay origin directly: when each new version of variant 0's playlist appeared.
                    var seen: [(sequence: Int, at: Double)] = []
                    let started = ContinuousClock.now
                    while ContinuousClock.now - started < .seconds(25) {
                        if let text = try? await RawHTTP.get(port: replayPort, "/live/ts/v0/index.m3u8", readTimeout: 5).text,
                           let sequence = ReplayFixtures.mediaSequence(text), sequence != seen.last?.sequence {
                            seen.append((sequence, (ContinuousClock.now - started) / .seconds(1)))
                        }
                        try await Task.sleep(for: .milliseconds(100))  // the sampling rate of the schedule under test, not a wait
                    }
                    let reports = await [ffmpegReport, hlsjsReport]
                    _ = try stack.proxy.control.stopRecording(session: nil)
                    let segmentsBySession = ["ffmpeg", "hlsjs"].map { Self.segments(stack.proxy, session: $0) }
                    await stack.stop()

                    // Each player: it played, and fetched recorded segments in media-sequence order, none skipped.
                    for (report, records) in zip(reports, segmentsBySession) {
                        let detail = "\(report.player): \(report.outcomeText)\n\(records.map { "\($0.path) \($0.status.map(String.init) ?? "-") \($0.ending)" }.joined(separator: "\n"))"
                        #expect(report.outcome == .played, "\(detail)\n\(report.log.suffix(1500))")
                        #expect(records.filter { $0.rendition == nil }.count >= 3, "\(detail)")
                        // Per variant and rendition (a player that switches fetches the same MSN from another one).
                        for stream in Dictionary(grouping: records, by: { "v\($0.variant ?? -1) r\($0.rendition ?? -1)" }) {
                            let sequence = stream.value.map { $0.msn ?? -1 }
                            #expect(sequence == sequence.sorted(), "\(report.player) \(stream.key): media sequence numbers in order: \(sequence)")
                            let distinct = Array(Set(sequence)).sorted()
                            #expect(distinct.last.map { $0 - distinct[0] + 1 } == distinct.count, "\(report.player) \(stream.key): none skipped: \(distinct)")
                        }
                        // 206 answers `Range: bytes=0-` (ffmpeg asks every resource so) with the whole body.
                        #expect(records.allSatisfy { $0.status == 200 || $0.status == 206 }, "\(detail)")
                    }

                    // The same bytes: every segment a player got is the recorded one (by SHA-256).
                    let replayed = try RecordingBundle.open(got.path)
                    let served = replayed.exchanges.filter {
                        $0.kind == "segment" && $0.ending == .complete && ($0.status == 200 || ($0.status == 206 && $0.range == "bytes=0-"))
                    }
                    #expect(served.count >= 6)
                    for exchange in served {
                        #expect(exchange.body?.sha256 == recordedBodies[Self.path(exchange.url)], "\(exchange.url)")
                    }

                    // The reload schedule: new versions of the playlist appear as they were recorded, within 10 %.
                    let versions = recorded.exchanges.filter { Self.path($0.url) == "/live/ts/v0/index.m3u8" && $0.status == 200 }
                    var recordedAppearance: [Int: Double] = [:]
                    for version in versions {
                        guard let text = try? String(decoding: recorded.body(of: version), as: UTF8.self),
                              let sequence = ReplayFixtures.mediaSequence(text), recordedAppearance[sequence] == nil else { continue }
                        recordedAppearance[sequence] = version.receivedAt
                    }
                    let common = seen.dropFirst().filter { recordedAppearance[$0.sequence] != nil }
                    try #require(common.count >= 3, "versions seen: \(seen), recorded: \(recordedAppearance.sorted { $0.key < $1.key })")
                    let replaySpan = common.last!.at - common.first!.at
                    let recordedSpan = recordedAppearance[common.last!.sequence]! - recordedAppearance[common.first!.sequence]!
                    #expect(abs(replaySpan - recordedSpan) <= 0.1 * recordedSpan,
                            "versions \(common.first!.sequence)…\(common.last!.sequence): \(replaySpan) s in the replay, \(recordedSpan) s recorded")
                }
            }
        }
    }

    /// `hlschaos record` fetches the LL stream as an LL player does; the replay answers blocking
    /// reloads as the origin did, so hls.js plays the replay as LL: blocking reloads and parts.
    @Test(.enabled(if: chromium, "needs chromium and chromedriver (scripts/install-deps.sh test)"))
    func anLLRecordingReplaysAsLLToHlsjs() async throws {
        try await withTemporaryFolder("recording") { folder in
            try await withStarted({ try await DemoOriginServer.start(origin: DemoOrigin()) }, stop: { try? await $0.shutdown() }) { demo in
                let settings = StreamRecorder.Settings(entry: demo.baseURL + "/ll/master.m3u8", duration: .seconds(16))
                let (_, recorded, _) = try await StreamRecorderTests.record(settings, in: folder)
                try await demo.shutdown()
                #expect(recorded.exchanges.filter { $0.kind == "part" }.count > 20)

                try await ReplayThroughProxyTests.Stack.with(URL(fileURLWithPath: recorded.location)) { stack in
                    #expect(stack.replay.origin.isLive)
                    let work = folder.url("ll")
                    let report = await BrowserDriver.hlsjs.play(PlayRequest(
                        url: "http://127.0.0.1:\(stack.proxy.port)/s/hlsjs" + stack.replay.origin.entryPath, timeout: 12, live: true,
                        workDirectory: work))
                    let records = stack.proxy.control.records(session: "hlsjs")
                    await stack.stop()
                    let blocking = records.filter { $0.kind == .media && $0.path.contains("_HLS_msn=") }
                    let parts = records.filter { $0.kind == .part }
                    let detail = "\(report.outcomeText)\n" + records.map { "\($0.path) \($0.status.map(String.init) ?? "-") \($0.ending)" }.joined(separator: "\n")
                    #expect(report.outcome == .played, "\(detail)")
                    #expect(blocking.count >= 5, "blocking reloads: \(blocking.count)\n\(detail)")
                    // Reloads still held when the page closed end as client aborts.
                    #expect(blocking.allSatisfy { $0.status == 200 || $0.ending == .clientAbort }, "\(detail)")
                    #expect(parts.count >= 5, "parts: \(parts.count)\n\(detail)")
                    #expect(parts.allSatisfy { $0.status == 200 || $0.ending == .clientAbort }, "\(detail)")
                    #expect(report.liveLatency != nil, "hls.js reports a live latency for an LL stream: \(report.summaryText)")
                }
            }
        }
    }

    @Test(.enabled(if: ffmpeg, "ffmpeg is not installed (apt-get install -y ffmpeg)"))
    func aRecordingMadeWithStatus503ReplaysTheSame503sWithNoRule() async throws {
        try await withTemporaryFolder("recording") { folder in
            // 1. ffmpeg plays the demo VOD through the proxy with the status-503 preset; the proxy records.
            try await withStarted({ try await DemoOriginServer.start(origin: DemoOrigin()) }, stop: { try? await $0.shutdown() }) { demo in
                let bundle = folder.url("field")
                var configuration = ProxyConfiguration()
                configuration.host = "127.0.0.1"
                configuration.port = 0
                configuration.defaultOrigin = UpstreamLocation(absolute: demo.baseURL)
                configuration.recordPath = bundle.path
                let upstream = try UpstreamClient(configuration: configuration.upstream)
                let field = try await ProxyServer.bind(configuration: configuration, upstream: upstream, rules: try RuleBook(ruleFiles: [], presetDirectory: nil))
                let fieldRun = Task { await field.run() }
                let work = folder.url("ffmpeg")
                let first = await FFmpegDriver(readTimeout: 5).play(PlayRequest(
                    url: "http://127.0.0.1:\(field.port)/s/tv1+status-503/vod/ts/master.m3u8", timeout: 60, live: false,
                    workDirectory: work.appendingPathComponent("field")))
                let failedThen = Self.segments(field, session: "tv1").filter { $0.status == 503 }.map { "v\($0.variant ?? -1) n\($0.msn ?? -1)" }
                field.shutdown()
                await fieldRun.value
                await upstream.shutdown()
                try await demo.shutdown()
                #expect(!failedThen.isEmpty, "the preset made 503s: \(first.outcomeText)")

                // 2. Replay the recording with no rule at all: the same segments fail the same way.
                try await ReplayThroughProxyTests.Stack.with(bundle) { stack in
                    let again = await FFmpegDriver(readTimeout: 5).play(PlayRequest(
                        url: "http://127.0.0.1:\(stack.proxy.port)/s/replay\(stack.replay.origin.entryPath)", timeout: 60, live: false,
                        workDirectory: work.appendingPathComponent("replay")))
                    let failedNow = Self.segments(stack.proxy, session: "replay").filter { $0.status == 503 }.map { "v\($0.variant ?? -1) n\($0.msn ?? -1)" }
                    let faulted = stack.proxy.control.records(session: "replay").filter(\.isFaulted)
                    await stack.stop()
                    #expect(faulted.isEmpty, "no rule was loaded")
                    // The same 503s, each as often; their order in the records may differ where ffmpeg had a retry
                    // of one segment and the next segment's request open at once.
                    #expect(failedNow.sorted() == failedThen.sorted(), "503s in the field: \(failedThen); in the replay: \(failedNow)")
                    #expect(again.outcome == first.outcome, "\(first.outcomeText) then \(again.outcomeText)")
                }
            }
        }
    }
}
