import Foundation
import PlayerReports
import Players
import Testing
import TestSupport

/// Every native driver against real HTTP on loopback: a clean stream must play, a failing one must
/// not. The players run one at a time (two cores, and timing-sensitive players).
@Suite(.serialized) struct NativeDriverTests {
    static let ffmpeg = ProcessRunner.which("ffmpeg") != nil
    static let gstreamer = ProcessRunner.which("gst-launch-1.0") != nil && ProcessRunner.which("gst-inspect-1.0") != nil
    static let vlc = ProcessRunner.which("cvlc") != nil
    static let mpv = ProcessRunner.which("mpv") != nil

    /// Plays `path` of the demo origin.
    static func playDemo(_ driver: any PlayerDriver, _ path: String = StreamFixtures.vod, timeout: Double = 60, live: Bool = false) async throws -> PlayerReport {
        return try await withTemporaryFolder("players") { folder in
            let demo = try await StreamFixtures.demo()
            let request = StreamFixtures.request(demo.baseURL + path, timeout: timeout, live: live, in: folder)
            let report = await driver.play(request)
            try await demo.shutdown()
            return report
        }
    }

    /// Plays `path` of the failing origin.
    static func playFailing(_ driver: any PlayerDriver, _ path: String, timeout: Double = 30) async throws -> PlayerReport {
        return try await withTemporaryFolder("players") { folder in
            let origin = try await StreamFixtures.failing()
            let request = StreamFixtures.request(origin.baseURL + path, timeout: timeout, in: folder)
            let report = await driver.play(request)
            try await origin.shutdown()
            return report
        }
    }

    static func expectCleanVOD(_ report: PlayerReport, minimumPosition: Double = 23) {
        let detail = StreamFixtures.describe(report)
        #expect(report.outcome == .played, "\(detail)")
        #expect(report.reason == nil, "\(detail)")
        #expect((report.position ?? 0) >= minimumPosition && (report.position ?? 0) <= 25, "\(detail)")
        #expect(report.errors.allSatisfy { $0.code == nil && !$0.fatal }, "\(detail)")
        #expect(report.stalls.isEmpty, "\(detail)")
        #expect(!report.log.isEmpty)
    }

    static func expectMaster404(_ report: PlayerReport) {
        let detail = StreamFixtures.describe(report)
        #expect(report.outcome == .failed, "\(detail)")
        #expect(report.errors.contains { $0.code == 404 }, "\(detail)")
        #expect(report.reason?.contains("404") == true, "\(detail)")
        #expect((report.position ?? 0) == 0, "\(detail)")
    }

    @Suite(.enabled(if: NativeDriverTests.ffmpeg, "ffmpeg is not installed (apt-get install -y ffmpeg)")) struct FFmpeg {
        let driver = FFmpegDriver(readTimeout: 5)

        @Test func availableWithItsVersion() async throws {
            guard case .ready(let version) = await driver.availability() else { Issue.record("not ready"); return }
            #expect(version.hasPrefix("ffmpeg version "))
        }

        @Test func playsTheDemoVODToTheEnd() async throws {
            let report = try await NativeDriverTests.playDemo(driver)
            NativeDriverTests.expectCleanVOD(report)
            #expect(report.version?.contains("lavf hls") == true)
            #expect(report.exitStatus == 0)
        }

        @Test func aMasterAnswering404Fails() async throws {
            NativeDriverTests.expectMaster404(try await NativeDriverTests.playFailing(driver, StreamFixtures.missingMaster))
        }

        @Test func everySegmentAnswering503Fails() async throws {
            let report = try await NativeDriverTests.playFailing(driver, StreamFixtures.segments503)
            #expect(report.outcome == .failed, "\(StreamFixtures.describe(report))")
            #expect(report.errors.filter { $0.code == 503 }.count >= 12, "\(StreamFixtures.describe(report))")
            #expect(report.errors.contains { $0.kind == "segmentFailed" })
        }

        @Test func playsLiveUntilTheLimit() async throws {
            let report = try await NativeDriverTests.playDemo(driver, StreamFixtures.live, timeout: 8, live: true)
            let detail = StreamFixtures.describe(report)
            #expect(report.outcome == .played, "\(detail)")
            #expect((report.position ?? 0) > 3, "\(detail)")
            #expect(report.seconds >= 7.5, "\(detail)")
        }

        /// `playback` hands back what ffmpeg printed and the frames it decoded; with `duration`
        /// a live run ends by itself after that much media.
        @Test func aLiveRunOfSixSecondsOfMedia() async throws {
            try await withTemporaryFolder("players") { folder in
                let demo = try await StreamFixtures.demo()
                let request = StreamFixtures.request(demo.baseURL + StreamFixtures.live, timeout: 60, live: true, in: folder)
                let playback = await FFmpegDriver(readTimeout: 5, duration: 6).playback(request)
                try await demo.shutdown()
                let detail = StreamFixtures.describe(playback.report)
                #expect(playback.report.outcome == .played, "\(detail)")
                #expect(playback.report.exitStatus == 0, "\(detail)")
                #expect(playback.frames == 6 * 25, "25 fps: \(detail)")
                #expect(playback.stderr.contains { $0.text.contains("Input #0, hls, from") }, "\(detail)")
                #expect(playback.stderr.allSatisfy { $0.time != nil }, "lines are timed as they are read")
            }
        }
    }

    @Suite(.enabled(if: NativeDriverTests.gstreamer, "GStreamer is not installed (gstreamer1.0-tools and plugins)")) struct GStreamer {
        let driver = GStreamerDriver(.playbin3)

        @Test func availableWithItsVersion() async throws {
            guard case .ready(let version) = await driver.availability() else { Issue.record("not ready"); return }
            #expect(version.hasPrefix("gst-launch-1.0 version "))
        }

        @Test func playsTheDemoVODToTheEndWithHlsdemux2() async throws {
            let report = try await NativeDriverTests.playDemo(driver)
            NativeDriverTests.expectCleanVOD(report)
            #expect(report.version?.hasSuffix("playbin3 + hlsdemux2") == true, "\(report.version ?? "nil")")
            // It starts on the first variant and moves up on loopback bandwidth.
            #expect(report.switches.first?.level == 0, "\(report.switches)")
            #expect(report.switches.contains { $0.level == 2 }, "\(report.switches)")
        }

        @Test func aMasterAnswering404Fails() async throws {
            NativeDriverTests.expectMaster404(try await NativeDriverTests.playFailing(driver, StreamFixtures.missingMaster))
        }

        /// hlsdemux2 retries a 503 segment in a tight loop and posts nothing: the run must end stalled.
        @Test func everySegmentAnswering503Stalls() async throws {
            let report = try await NativeDriverTests.playFailing(driver, StreamFixtures.segments503, timeout: 8)
            let detail = StreamFixtures.describe(report)
            #expect(report.outcome == .stalled, "\(detail)")
            #expect(report.reason?.contains("nothing played within the 8 s limit") == true, "\(detail)")
            #expect(report.version?.hasSuffix("playbin3 + hlsdemux2") == true, "\(detail)")
        }
    }

    @Suite(.enabled(if: NativeDriverTests.gstreamer, "GStreamer is not installed (gstreamer1.0-tools and plugins)")) struct GStreamerLegacy {
        let driver = GStreamerDriver(.legacy)

        @Test func playsTheDemoVODToTheEndWithTheLegacyDemuxer() async throws {
            let report = try await NativeDriverTests.playDemo(driver)
            NativeDriverTests.expectCleanVOD(report)
            #expect(report.version?.hasSuffix("playbin + hlsdemux") == true, "\(report.version ?? "nil")")
            #expect(!report.switches.isEmpty)
        }

        @Test func aMasterAnswering404Fails() async throws {
            NativeDriverTests.expectMaster404(try await NativeDriverTests.playFailing(driver, StreamFixtures.missingMaster))
        }

        @Test func everySegmentAnswering503DoesNotPlay() async throws {
            let report = try await NativeDriverTests.playFailing(driver, StreamFixtures.segments503, timeout: 8)
            let detail = StreamFixtures.describe(report)
            #expect(report.outcome != .played, "\(detail)")
            #expect([.failed, .stalled].contains(report.outcome), "\(detail)")
            #expect(report.errors.contains { $0.code == 503 }, "\(detail)")
        }
    }

    @Suite(.enabled(if: NativeDriverTests.vlc, "VLC is not installed (apt-get install -y vlc-bin vlc-plugin-base)")) struct VLC {
        let driver = VLCDriver()

        @Test func availableWithItsVersion() async throws {
            guard case .ready(let version) = await driver.availability() else { Issue.record("not ready"); return }
            #expect(version.hasPrefix("VLC version "))
        }

        @Test func playsTheDemoVODToTheEnd() async throws {
            let report = try await NativeDriverTests.playDemo(driver)
            // VLC logs its position about once a second of wall clock, at 4× that is 4 s of media: the
            // last line before EOF can be that far from the end (19.9 s seen on a busy machine).
            NativeDriverTests.expectCleanVOD(report, minimumPosition: 18)
            #expect(report.version?.hasSuffix("adaptive") == true)
            #expect(!report.switches.isEmpty)
        }

        @Test func aMasterAnswering404Fails() async throws {
            NativeDriverTests.expectMaster404(try await NativeDriverTests.playFailing(driver, StreamFixtures.missingMaster))
        }

        @Test func everySegmentAnswering503Fails() async throws {
            let report = try await NativeDriverTests.playFailing(driver, StreamFixtures.segments503, timeout: 30)
            let detail = StreamFixtures.describe(report)
            #expect(report.outcome == .failed, "\(detail)")
            #expect(report.errors.contains { $0.code == 503 }, "\(detail)")
            #expect(report.reason?.hasPrefix("nothing played") == true, "\(detail)")
            // Stopped after its farewell rather than at the limit.
            #expect(report.seconds < 25, "\(detail)")
        }
    }

    @Suite(.enabled(if: NativeDriverTests.mpv, "mpv is not installed (apt-get install -y mpv)")) struct MPV {
        let driver = MPVDriver(networkTimeout: 5)

        @Test func availableWithItsVersion() async throws {
            guard case .ready(let version) = await driver.availability() else { Issue.record("not ready"); return }
            #expect(version.hasPrefix("mpv "))
        }

        @Test func playsTheDemoVODToTheEndOnTheTopVariant() async throws {
            let report = try await NativeDriverTests.playDemo(driver)
            NativeDriverTests.expectCleanVOD(report)
            #expect(report.switches.map(\.level) == [2])
            #expect(report.exitStatus == 0)
        }

        @Test func aMasterAnswering404Fails() async throws {
            NativeDriverTests.expectMaster404(try await NativeDriverTests.playFailing(driver, StreamFixtures.missingMaster))
        }

        @Test func everySegmentAnswering503Fails() async throws {
            let report = try await NativeDriverTests.playFailing(driver, StreamFixtures.segments503)
            let detail = StreamFixtures.describe(report)
            #expect(report.outcome == .failed, "\(detail)")
            #expect(report.errors.contains { $0.code == 503 }, "\(detail)")
        }
    }
}
