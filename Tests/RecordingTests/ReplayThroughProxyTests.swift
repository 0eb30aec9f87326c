import Addressing
import Foundation
import HLS
import Players
import Proxy
import RuleLoading
import BundleFormat
import Replay
import Testing
import TestSupport
import Upstream

/// The replay origin behind the proxy, as `hlschaos replay` runs them: device URLs play, the
/// recorded failures come through, rules apply on top, and ffmpeg plays a replayed VOD to the end.
@Suite(.serialized) struct ReplayThroughProxyTests {
    static let ffmpeg = ProcessRunner.which("ffmpeg") != nil

    /// A proxy whose default origin is the replay origin.
    struct Stack {
        let replay: ReplayServer
        let proxy: ProxyServer
        let upstream: UpstreamClient
        let run: Task<Void, Never>

        static func start(
            _ bundle: URL, rules: [String] = [], configure: (inout ProxyConfiguration) -> Void = { _ in }
        ) async throws -> Stack {
            let replay = try await ReplayFixtures.start(bundle)
            return try await withRollback({ await replay.shutdown() }) {
                try await start(bundle, replay: replay, rules: rules, configure: configure)
            }
        }

        /// The proxy in front of `replay`; a step that fails stops what the steps before it started.
        private static func start(
            _ bundle: URL, replay: ReplayServer, rules: [String], configure: (inout ProxyConfiguration) -> Void
        ) async throws -> Stack {
            var configuration = ProxyConfiguration()
            configuration.host = "127.0.0.1"
            configuration.port = 0
            configuration.defaultOrigin = UpstreamLocation(absolute: replay.baseURL)
            // Nothing here is about time: the unit phase's start-up can starve this process for
            // more than the default 10 s (CI once saw the master answered 504).
            configuration.upstream.firstByteTimeout = .seconds(60)
            configuration.playlistTimeout = 60
            configure(&configuration)
            // The rule files are read once, when the book is made.
            let book = try withTemporaryFolder("rules") { folder in
                try RuleBook(ruleFiles: try rules.enumerated().map { try folder.file("rules-\($0.offset).json", $0.element) }, presetDirectory: nil)
            }
            let upstream = try UpstreamClient(configuration: configuration.upstream)
            let proxy = try await withRollback({ await upstream.shutdown() }) {
                try await ProxyServer.bind(configuration: configuration, upstream: upstream, rules: book)
            }
            return Stack(replay: replay, proxy: proxy, upstream: upstream, run: Task { await proxy.run() })
        }

        /// Runs `body` with a started stack (as `start`) and stops it afterwards, also when `body` throws.
        static func with<Result>(
            _ bundle: URL, rules: [String] = [], configure: (inout ProxyConfiguration) -> Void = { _ in },
            isolation: isolated (any Actor)? = #isolation,
            _ body: (Stack) async throws -> Result
        ) async throws -> Result {
            try await withStarted(
                isolation: isolation, { try await start(bundle, rules: rules, configure: configure) }, stop: { await $0.stop() }, run: body)
        }

        func get(_ target: String) async throws -> RawHTTPConnection.Response {
            try await RawHTTP.get(port: proxy.port, target, readTimeout: 70)
        }

        func stop() async {
            proxy.shutdown()
            await run.value
            await upstream.shutdown()
            await replay.shutdown()
        }
    }

    /// The URI of the first variant (or segment) of a playlist served by the proxy, as a target on it.
    static func firstURI(_ text: String) throws -> String {
        let playlist = try Playlist(string: text)
        let uri = try #require(playlist.variants.first?.uri ?? playlist.segments.first?.uri)
        #expect(uri.hasPrefix("/"), "the proxy writes root-relative URIs: \(uri)")
        return uri
    }

    @Test func aDeviceURLThroughTheProxyPlaysTheRecordingWithItsFailures() async throws {
        try await withTemporaryFolder("replay") { folder in
            try await Stack.with(try ReplayFixtures.vod(in: folder)) { stack in
                let master = try await stack.get("/s/tv1" + stack.replay.origin.entryPath)
                #expect(master.status == 200)
                let mediaTarget = try Self.firstURI(master.text)
                #expect(mediaTarget.contains("/_host/media.test/vod/v0/index.m3u8"), "\(mediaTarget)")
                let media = try await stack.get(mediaTarget)
                #expect(media.status == 200)
                let segments = try Playlist(string: media.text).segments.map(\.uri)
                #expect(segments.count == 6)
                let first = try await stack.get(segments[0])
                #expect(first.status == 200 && first.body == ReplayFixtures.segmentBytes(0))
                // seg-503.ts: recorded 503 then 200, through the proxy too.
                #expect(try await stack.get(segments[1]).status == 503)
                let retried = try await stack.get(segments[1])
                #expect(retried.status == 200 && retried.body == ReplayFixtures.segmentBytes(1))
            }
        }
    }

    /// Recorded through another hlschaos: the entry's paths look like the proxy's own (/s/…, /~…),
    /// so the entry's host is served under /_host/ too and the device URL still reaches it.
    @Test func aRecordingMadeThroughAProxyReplaysBehindAnother() async throws {
        try await withTemporaryFolder("replay") { folder in
            let recordedHost = "http://127.0.0.1:8080"
            let segmentPath = "/s/tv1/~seg.n0/http/origin.test/seg0.ts"
            let playlist = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\n\(segmentPath)\n#EXT-X-ENDLIST\n"
            let bundle = try ReplayFixtures.bundle(entry: recordedHost + "/s/tv1/live.m3u8", in: folder) { writer in
                try writer.append(Exchange(at: 0, url: recordedHost + "/s/tv1/live.m3u8", status: 200,
                                           body: try writer.storeBody(Array(playlist.utf8)), kind: "media"))
                try writer.append(Exchange(at: 0.1, url: recordedHost + segmentPath, status: 200,
                                           body: try writer.storeBody(ReplayFixtures.segmentBytes(0)), kind: "segment"))
            }
            try await Stack.with(bundle) { stack in
                #expect(!stack.replay.origin.entryAtRoot)
                #expect(stack.replay.origin.entryPath == "/_host/127.0.0.1:8080/s/tv1/live.m3u8")
                let media = try await stack.get(stack.replay.origin.entryPath)
                #expect(media.status == 200, "\(media.text)")
                let segment = try await stack.get(try Self.firstURI(media.text))
                #expect(segment.status == 200 && segment.body == ReplayFixtures.segmentBytes(0), "\(segment.text)")
            }
        }
    }

    @Test func rulesApplyOnTopOfTheReplay() async throws {
        try await withTemporaryFolder("replay") { folder in
            let rule = #"{"name": "media-500", "rules": [{"id": "m", "match": {"kind": "media"}, "action": {"status": 500}}]}"#
            try await Stack.with(try ReplayFixtures.vod(in: folder), rules: [rule]) { stack in
                let master = try await stack.get("/vod/master.m3u8")
                #expect(master.status == 200)
                #expect(try await stack.get(try Self.firstURI(master.text)).status == 500)
            }
        }
    }

    @Test(.enabled(if: ReplayThroughProxyTests.ffmpeg, "ffmpeg is not installed (apt-get install -y ffmpeg)"))
    func ffmpegPlaysAReplayedVODToTheEnd() async throws {
        try await withTemporaryFolder("replay") { folder in
            try await Stack.with(try ReplayFixtures.demoVOD(in: folder)) { stack in
                let request = PlayRequest(
                    url: "http://127.0.0.1:\(stack.proxy.port)/s/ffmpeg\(stack.replay.origin.entryPath)", timeout: 60, live: false,
                    workDirectory: folder.url("ffmpeg"))
                let report = await FFmpegDriver(readTimeout: 5).play(request)
                await stack.stop()
                let detail = "\(report.outcomeText), position \(report.position ?? -1), errors \(report.errors)\n\(report.log.suffix(2000))"
                #expect(report.outcome == .played, "\(detail)")
                #expect((report.position ?? 0) >= 23, "\(detail)")
                #expect(report.errors.allSatisfy { $0.code == nil && !$0.fatal }, "\(detail)")
            }
        }
    }
}
