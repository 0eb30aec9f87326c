import Foundation
import PlayerReports
import Testing
@testable import Players

/// The harness's JSON → `PlayerReport`, on logs recorded from real runs and on small made-up ones.
@Suite struct BrowserReportTests {
    private func report(
        _ json: String, engine: BrowserEngine, live: Bool = false, limit: Double, stderr: String = ""
    ) -> PlayerReport {
        BrowserReport.report(
            player: engine.id, engine: engine, live: live, limit: limit,
            run: .init(stdout: "some noise\n" + json + "\n", stderr: stderr, status: 0, seconds: 9.5))
    }

    // MARK: recorded

    @Test func hlsjsPlayingTheDemoVOD() throws {
        let r = report(BrowserLogFixtures.hlsjsVOD, engine: .hlsjs, limit: 40)
        #expect(r.outcome == .played)
        #expect(r.reason == nil)
        #expect(r.position == 24)
        #expect(r.player == "hlsjs")
        #expect(r.version == "hls.js 1.6.15 (gradio 6.31.0), Chromium 156.0.8078.79")
        #expect(r.switches == [.init(time: 0.396, level: 1), .init(time: 0.771, level: 2)])
        #expect(r.stalls.isEmpty, "the wait before the first frame is start-up, not a stall")
        #expect(r.errors.isEmpty)
        #expect(r.seconds == 9.5)
        #expect(r.exitStatus == 0)
        #expect(r.log.contains("0.217 fragLoaded main sn=0 level=1 http://127.0.0.1:37671/vod/ts/v1/s000.ts"), "\(r.log)")
    }

    @Test func vhsPlayingTheDemoVOD() {
        let r = report(BrowserLogFixtures.vhsVOD, engine: .vhs, limit: 40)
        #expect(r.outcome == .played)
        #expect(r.position == 24.08)
        #expect(r.version == "video.js 7.5.5 with VHS 1.9.3 (js-videojs 7.5.5), Chromium 156.0.8078.79")
        #expect(r.switches == [.init(time: 0.167, level: 0)])
        #expect(r.errors.isEmpty)
    }

    @Test func hlsjsGivingUpOnMissingSegments() throws {
        let r = report(BrowserLogFixtures.hlsjsSegments404, engine: .hlsjs, limit: 15)
        #expect(r.outcome == .failed)
        #expect(r.reason == "hls.js fatal networkError fragLoadError (HTTP 404) sn 0 (audio)")
        #expect(r.outcomeText == "failed: hls.js fatal networkError fragLoadError (HTTP 404) sn 0 (audio)")
        #expect(r.errors.count == 7)
        #expect(r.errors.allSatisfy { $0.kind == "fragLoadError" && $0.code == 404 })
        #expect(r.errors.filter(\.fatal).count == 1)
        let last = try #require(r.errors.last)
        #expect(last.fatal && last.time == 10.547)
        #expect(last.message.hasPrefix("networkError fragLoadError HTTP 404 sn 0 audio level 0 http://127.0.0.1:35017/vod/ts/audio/en/s000.ts"), "\(last.message)")
        #expect(r.position == 0)
    }

    /// VHS 1.9.3 never gives up on the last variant: stalled at 0 with its segment errors.
    @Test func vhsRetryingMissingSegmentsUntilTheLimit() throws {
        let r = report(BrowserLogFixtures.vhsSegments404, engine: .vhs, limit: 15)
        #expect(r.outcome == .stalled)
        let reason = try #require(r.reason)
        #expect(reason.hasPrefix("position stuck at 0.0 s for the last 15.0 s; 5 errors, the last: segmentError (HTTP 404)"), "\(reason)")
        #expect(r.errors.count == 5)
        #expect(r.errors.allSatisfy { $0.kind == "segmentError" && $0.code == 404 && !$0.fatal })
        #expect(r.errors.first?.message == "HLS request errored at URL: http://127.0.0.1:38941/vod/ts/v0/s000.ts (variant 0)")
        #expect(r.switches.map(\.level) == [0, 1, 2], "each exclusion moves to another variant")
        #expect(r.log.contains("playlistExcluded level=0"))
        #expect(r.log.contains("playlistRetry level=2"))
    }

    @Test func hlsjsWithoutAMasterPlaylist() {
        let r = report(BrowserLogFixtures.hlsjsMaster404, engine: .hlsjs, limit: 20)
        #expect(r.outcome == .failed)
        #expect(r.reason == "hls.js fatal networkError manifestLoadError (HTTP 404)")
        #expect(r.errors.map(\.kind) == ["manifestLoadError"])
    }

    @Test func vhsWithoutAMasterPlaylist() {
        let r = report(BrowserLogFixtures.vhsMaster404, engine: .vhs, limit: 20)
        #expect(r.outcome == .failed)
        #expect(r.reason == "video.js fatal MEDIA_ERR_NETWORK (code 2): HLS playlist request error at URL: http://127.0.0.1:40693/gone/master.m3u8 (HTTP 404)")
        #expect(r.errors == [
            .init(time: 0.173, kind: "MEDIA_ERR_NETWORK", code: 2, fatal: true,
                  message: "HLS playlist request error at URL: http://127.0.0.1:40693/gone/master.m3u8 (HTTP 404)"),
            .init(time: 0.174, kind: "playlistError", code: 404, fatal: false,
                  message: "HLS playlist request error at URL: http://127.0.0.1:40693/gone/master.m3u8"),
        ])
    }

    @Test func vhsWithoutAMasterPlaylistWhenTheElementReportsFirst() {
        let r = report(BrowserLogFixtures.vhsMaster404SourceError, engine: .vhs, limit: 20)
        #expect(r.outcome == .failed)
        #expect(r.reason == "video.js fatal MEDIA_ERR_SRC_NOT_SUPPORTED (code 4): The media could not be loaded, either because the server or network failed or because the format is not supported.; after playlistError (HTTP 404) http://127.0.0.1:37883/gone/master.m3u8")
        #expect(r.errors.map(\.kind) == ["playlistError", "MEDIA_ERR_SRC_NOT_SUPPORTED", "MEDIA_ERR_SRC_NOT_SUPPORTED", "playRejected"])
        #expect(r.errors.map(\.fatal) == [false, true, false, false])
    }

    /// Live: still advancing at the limit is success; the same log for a VOD is a time-out.
    @Test(arguments: [(BrowserLogFixtures.hlsjsLive, BrowserEngine.hlsjs), (BrowserLogFixtures.vhsLive, .vhs)])
    func liveStreamsPlayUntilTheLimit(json: String, engine: BrowserEngine) throws {
        let live = report(json, engine: engine, live: true, limit: 10)
        #expect(live.outcome == .played, "\(live.outcomeText)")
        #expect(live.reason == nil)
        #expect((live.position ?? 0) > 15)
        let vod = report(json, engine: engine, live: false, limit: 10)
        #expect(vod.outcome == .timedOut)
        #expect(try #require(vod.reason).hasPrefix("did not reach the end within 10.0 s (position 15."), "\(vod.outcomeText)")
    }

    /// The LL demo through the proxy: hls.js loads parts off playlists that offer blocking
    /// reloads, and its latency samples from the first `playing` on become `liveLatency`.
    @Test func hlsjsPlayingTheLowLatencyDemo() throws {
        let r = report(BrowserLogFixtures.hlsjsLowLatency, engine: .hlsjs, live: true, limit: 5)
        #expect(r.outcome == .played, "\(r.outcomeText)")
        #expect(r.liveLatency == .init(median: 1.813, min: 1.683, max: 1.821, last: 1.817, samples: 11, target: 1.218))
        #expect(r.summaryText == "played; live latency 1.8 s (median of 11 samples; 1.7–1.8 s, last 1.8 s, target 1.2 s)")
        #expect(!r.log.contains(" latency "), "samples are summed up in liveLatency, not logged: \(r.log)")
        #expect(r.log.contains("0.150 levelLoaded level=1 parts=15 blockingReload"), "\(r.log)")
        #expect(r.log.contains("0.227 fragLoaded main sn=12 level=1 part=0 http://"), "\(r.log)")
        let sample = try #require(BrowserLog.parse(BrowserLogFixtures.hlsjsLowLatency)?.events.last)
        #expect(BrowserReport.text([sample]) == "5.084 latency position=27.4 parts=17 blockingReload latency=1.817 target=1.218 drift=1.008 wallLatency=1.825\n")
        let log = try #require(BrowserLog.parse(BrowserLogFixtures.hlsjsLowLatency))
        let loads = log.events.filter { $0.event == "levelLoaded" }
        #expect(!loads.isEmpty && loads.allSatisfy { $0.canBlockReload == true && ($0.parts ?? 0) > 0 })
        let parts = log.events.filter { $0.event == "fragLoaded" }.compactMap(\.part)
        #expect(parts.count == 34 && Set(parts) == [0, 1, 2, 3, 4])
        #expect(log.events.last?.wallLatency == 1.825)
    }

    @Test func vodAndOrdinaryLiveHaveNoLatency() {
        #expect(report(BrowserLogFixtures.hlsjsVOD, engine: .hlsjs, limit: 40).liveLatency == nil)
        #expect(report(BrowserLogFixtures.hlsjsLive, engine: .hlsjs, live: true, limit: 10).liveLatency == nil)
    }

    // MARK: made up

    /// Before the first `playing` the position is where playback will start; 0 is hls.js's
    /// latency before it computed one. Neither is a sample.
    @Test func latencyIsSampledFromTheFirstPlayingOnWithoutZeros() {
        func latency(_ t: Double, _ value: Double) -> BrowserLog.Event {
            .init(t: t, event: "latency", latency: value, targetLatency: 1.218)
        }
        let events = [latency(0.2, 30), .init(t: 0.5, event: "playing"), latency(0.6, 0), latency(1, 2), latency(1.5, 1), latency(2, 3), latency(2.5, 4)]
        let r = BrowserReport.report(player: "hlsjs", engine: .hlsjs, live: true, limit: 3, log: log(events: events, samples: [[0.5, 20], [2.5, 22]]))
        #expect(r.liveLatency == .init(median: 2.5, min: 1, max: 4, last: 4, samples: 4, target: 1.218))
        let neverPlayed = BrowserReport.report(player: "hlsjs", engine: .hlsjs, live: true, limit: 3,
                                               log: log(events: [latency(0.2, 30)], samples: [[0.5, 0], [2.5, 0]]))
        #expect(neverPlayed.liveLatency == nil)
        #expect(neverPlayed.summaryText == neverPlayed.outcomeText)
    }

    private func log(
        engine: String = "hlsjs", ended: Bool = false, limitReached: Bool = true, events: [BrowserLog.Event] = [],
        samples: [[Double]], duration: Double? = 24
    ) -> BrowserLog {
        BrowserLog(engine: engine, ended: ended, currentTime: samples.last?[1], duration: duration, elapsed: samples.last?[0],
                   limitReached: limitReached, events: events, samples: samples, engineVersion: "1.6.15", browserVersion: "1")
    }

    @Test func aPositionThatStopsMovingIsAStall() throws {
        let samples = [[0.5, 0], [1, 4], [2, 8], [3, 12], [5, 12], [7, 12], [9.5, 12]]
        let events: [BrowserLog.Event] = [
            .init(t: 0.1, event: "waiting"), .init(t: 0.4, event: "playing"),
            .init(t: 1.5, event: "waiting"), .init(t: 1.5, event: "playing"),  // a 0 s blip: left out
            .init(t: 2.0, event: "waiting"), .init(t: 2.6, event: "playing"),
            .init(t: 3.0, event: "waiting", position: 12),
            .init(t: 4.0, event: "error", type: "networkError", details: "fragLoadTimeOut", fatal: false, sn: 7),
        ]
        let r = BrowserReport.report(player: "hlsjs", engine: .hlsjs, live: false, limit: 9.5,
                                     log: log(events: events, samples: samples))
        #expect(r.outcome == .stalled)
        #expect(r.reason == "position stuck at 12.0 s for the last 6.5 s; 1 error, the last: fragLoadTimeOut")
        #expect(r.stalls == [.init(at: 2.0, duration: 0.6), .init(at: 3.0, duration: 6.5)])
        #expect(r.errors.first?.code == nil)
    }

    @Test func aLiveStreamThatFreezesIsStalledNotPlayed() {
        let samples = [[0.5, 6], [2, 7.5], [4, 8], [6, 8], [8, 8], [10, 8]]
        let r = BrowserReport.report(player: "vhs", engine: .vhs, live: true, limit: 10,
                                     log: log(engine: "vhs", samples: samples))
        #expect(r.outcome == .stalled)
        #expect(r.reason == "position stuck at 8.0 s for the last 6.0 s")
        #expect(BrowserReport.stallWindow(limit: 10) == 5)
        #expect(BrowserReport.stallWindow(limit: 60) == 6)
    }

    @Test func aVODStillPlayingAtTheLimitTimesOut() {
        let r = BrowserReport.report(player: "hlsjs", engine: .hlsjs, live: false, limit: 3,
                                     log: log(samples: [[0.5, 0], [1.5, 8], [2.5, 16], [3, 20]]))
        #expect(r.outcome == .timedOut)
        #expect(r.reason == "did not reach the end within 3.0 s (position 20.0 s of 24.0 s)")
    }

    @Test func aLiveStreamThatEndsHasPlayed() {
        let r = BrowserReport.report(player: "hlsjs", engine: .hlsjs, live: true, limit: 30,
                                     log: log(ended: true, limitReached: false, samples: [[0.5, 0], [12, 12]]))
        #expect(r.outcome == .played)
        #expect(r.reason == "the live stream ended at 12.0 s (its playlist was closed)")
    }

    @Test func aPageErrorFails() {
        let error = BrowserLog.Event(t: 0.01, event: "pageError", fatal: true, reason: "TypeError: attach is not a function")
        var page = log(limitReached: false, events: [error], samples: [[0.1, 0]])
        page.fatal = error
        let r = BrowserReport.report(player: "hlsjs", engine: .hlsjs, live: false, limit: 30, log: page)
        #expect(r.outcome == .failed)
        #expect(r.reason == "the player page failed: TypeError: attach is not a function")
        #expect(r.errors.map(\.kind) == ["pageError"])
    }

    @Test func aHarnessThatCouldNotStartTheBrowserFails() {
        let json = #"{"engine":"vhs","live":false,"ended":false,"events":[],"samples":[],"harnessError":"SessionNotCreatedException: Message: session not created","browserVersion":null}"#
        let r = report(json, engine: .vhs, limit: 30, stderr: "Traceback …\n")
        #expect(r.outcome == .failed)
        #expect(r.reason == "browser harness: SessionNotCreatedException: Message: session not created")
        #expect(r.version == "video.js 7.5.5 with VHS 1.9.3 (js-videojs 7.5.5)")
        #expect(r.log.contains("--- harness stderr ---\nTraceback"))
    }

    @Test func noReportAtAll() {
        let crashed = BrowserReport.report(
            player: "hlsjs", engine: .hlsjs, live: false, limit: 30,
            run: .init(stdout: "", stderr: "Traceback (most recent call last):\n  File \"x\"\nKeyError: 'url'\n", status: 1, seconds: 0.2))
        #expect(crashed.outcome == .failed)
        #expect(crashed.reason == "the browser harness exited with status 1 without a report: Traceback (most recent call last): / File \"x\" / KeyError: 'url'")
        #expect(crashed.exitStatus == 1)
        let hung = BrowserReport.report(
            player: "hlsjs", engine: .hlsjs, live: false, limit: 30,
            run: .init(stdout: "", status: 137, timedOut: true, seconds: 90))
        #expect(hung.outcome == .timedOut)
        #expect(hung.reason == "the browser harness did not finish (watchdog after 90.0 s)")
    }

    /// hls.js gives `sn: "initSegment"` for init segments; numbers may come as 404.0; unknown
    /// keys are ignored. None of that breaks the document.
    @Test func decodingIsLenient() throws {
        let json = #"{"engine":"hlsjs","ended":false,"extra":{"a":1},"events":[{"t":1,"event":"error","details":"fragLoadError","sn":"initSegment","code":404.0,"fatal":false,"level":null,"new":true},{"event":"fragLoaded","sn":3,"t":"soon"}],"samples":[[1,2],[3],[4,5]],"currentTime":2}"#
        let log = try #require(BrowserLog.parse(json))
        #expect(log.events[0].sn == nil)
        #expect(log.events[0].code == 404)
        #expect(log.events[0].level == nil)
        #expect(log.events[1].t == nil && log.events[1].sn == 3)
        #expect(log.samples == [[1, 2], [4, 5]])
        #expect(BrowserLog.parse("not json\n{broken") == nil)
    }

    /// What the preset playback tests read besides errors: the variants the master lists, and
    /// each playlist load's live flag and sequence numbers.
    @Test func playlistFactsAreDecoded() throws {
        let vod = try #require(BrowserLog.parse(BrowserLogFixtures.hlsjsVOD))
        #expect(vod.events.first { $0.event == "manifestParsed" }?.levels == 3)
        let loaded = try #require(vod.events.first { $0.event == "levelLoaded" })
        #expect(loaded.live == false && loaded.startSN == 0 && loaded.endSN == 11 && loaded.level == 1)
        let live = try #require(BrowserLog.parse(BrowserLogFixtures.hlsjsLive))
        let reloads = live.events.filter { $0.event == "levelLoaded" && $0.level == 2 }
        #expect(reloads.allSatisfy { $0.live == true })
        #expect(reloads.compactMap(\.endSN) == [6, 7, 8, 9, 10])
        #expect(live.events.first { $0.event == "fragLoaded" }?.fragType == "main")
    }

    @Test func theStreamURLCannotEndThePageScript() {
        let page = BrowserPages.page(for: .vhs, url: "http://x/</script><script>alert(1)</script>", rate: 8)
        #expect(!page.contains("</script><script>alert"))
        #expect(page.contains(#"player.src({src: "http:\/\/x\/<\/script><script>alert(1)<\/script>""#))
        #expect(BrowserPages.page(for: .hlsjs, url: "http://x/a.m3u8", rate: 8).contains("video.playbackRate = 8.0;"))
    }

    /// VHS caps its renditions to the video element's size: the page makes the player 1280×720 and
    /// the element fill it, or the element's own size (the lowest variant's video) held VHS there.
    @Test func theVideoJSElementHasThePlayersSize() {
        let page = BrowserPages.page(for: .vhs, url: "http://x/a.m3u8", rate: 8)
        #expect(page.contains("videojs('v', {width: 1280, height: 720,"))
        #expect(page.contains(".video-js .vjs-tech {position: absolute; top: 0; left: 0; width: 100%; height: 100%}"))
    }

    @Test func chromiumVersionIsTheFirstNumber() {
        #expect(BrowserTools.parseVersion("Chromium 156.0.8078.79 built on Debian GNU/Linux 12 (bookworm)\n") == "156.0.8078.79")
        #expect(BrowserTools.parseVersion("Google Chrome 120.0.6099.71 \n") == "120.0.6099.71")
        #expect(BrowserTools.parseVersion("") == nil)
    }

    /// The page's own buffer samples (every 250 ms) reach the report; a malformed one is left out.
    @Test func theBufferSamplesReachTheReport() {
        let json = #"{"engine": "hlsjs", "live": false, "ended": true, "limitReached": false, "events": [], "samples": [], "currentTime": 2, "buffer": [[0.25, 0, 1.5], [0.5, 0.2, 3.25], [0.75, 0.4]]}"#
        let r = report(json, engine: .hlsjs, limit: 40)
        #expect(r.buffer == [.init(at: 0.25, position: 0, ahead: 1.5), .init(at: 0.5, position: 0.2, ahead: 3.25)])
        let none = report(#"{"engine": "hlsjs", "live": false, "ended": true, "limitReached": false, "events": [], "samples": []}"#, engine: .hlsjs, limit: 40)
        #expect(none.buffer == nil)
    }
}
