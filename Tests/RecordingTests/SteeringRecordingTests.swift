import BundleFormat
import Foundation
import Recorder
import Replay
import Testing
import TestSupport

/// `hlschaos record` fetches what a master names besides its playlists: the content-steering
/// manifest, again at every TTL from its RELOAD-URI, and session data once; a replay answers a
/// steering client's reloads with the recorded manifests in order.
@Suite struct SteeringRecordingTests {
    static let master = """
        #EXTM3U
        #EXT-X-CONTENT-STEERING:SERVER-URI="/steer/manifest.json",PATHWAY-ID="a"
        #EXT-X-SESSION-DATA:DATA-ID="com.example.info",URI="info.json"
        #EXT-X-STREAM-INF:BANDWIDTH=1000,PATHWAY-ID="a"
        a.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=1000,PATHWAY-ID="b"
        b.m3u8

        """

    static func origin(live: Bool) async throws -> TestOrigin {
        let origin = try await TestOrigin.start()
        origin.route("/master.m3u8", .bytes(body: Array(master.utf8)))
        let media = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\ns1.ts\n" + (live ? "" : "#EXT-X-ENDLIST\n")
        origin.route("/a.m3u8", .bytes(body: Array(media.utf8)))
        origin.route("/b.m3u8", .bytes(body: Array(media.utf8)))
        origin.route("/s1.ts", .bytes(body: [1]))
        origin.route("/info.json", .bytes(body: Array(#"{"title": "x"}"#.utf8)))
        // The first manifest sends the client to a RELOAD-URI, relative to the manifest's URL.
        origin.route("/steer/manifest.json", .bytes(body: Array(#"{"VERSION": 1, "TTL": 1, "RELOAD-URI": "reload.json?session=7", "PATHWAY-PRIORITY": ["a", "b"]}"#.utf8)))
        origin.route("/steer/reload.json", .bytes(body: Array(#"{"VERSION": 1, "TTL": 1, "PATHWAY-PRIORITY": ["b", "a"]}"#.utf8)))
        return origin
    }

    @Test func theSteeringManifestIsReloadedAtItsTTLFromItsReloadURIAndSessionDataIsFetchedOnce() async throws {
        try await withTemporaryFolder("recording") { folder in
            let origin = try await Self.origin(live: true)
            try await withTeardown { try? await origin.shutdown() } run: {
                // Until the origin has seen two reloads, not for a fixed time: a starved test process still
                // gets the recording it checks. At most a minute.
                let settings = StreamRecorder.Settings(entry: origin.baseURL + "/master.m3u8", duration: .seconds(60))
                let (ending, bundle, recorder) = try await StreamRecorderTests.record(settings, in: folder) { recorder in
                    _ = await origin.waitUntil(timeout: .seconds(60)) { $0.requestLog.filter { $0.path == "/steer/reload.json" }.count >= 2 }
                    recorder.stop("two reloads of the steering manifest")
                }
                #expect(ending == .stopped("two reloads of the steering manifest"))

                let steering = bundle.exchanges.filter { $0.kind == "steering" }
                #expect(steering.first?.url == origin.baseURL + "/steer/manifest.json")
                #expect(steering.dropFirst().allSatisfy { $0.url == origin.baseURL + "/steer/reload.json?session=7" }, "\(steering.map(\.url))")
                #expect(steering.count >= 2, "the manifest, then its reloads: \(steering.map(\.at))")
                for (earlier, later) in zip(steering, steering.dropFirst()) {
                    #expect(later.at - earlier.at >= 0.95, "TTL 1: \(earlier.at) then \(later.at)")
                }
                #expect(steering.allSatisfy { $0.status == 200 && $0.ending == .complete })
                #expect(try bundle.body(of: try #require(steering.last)) == Array(#"{"VERSION": 1, "TTL": 1, "PATHWAY-PRIORITY": ["b", "a"]}"#.utf8))

                let sessionData = bundle.exchanges.filter { $0.kind == "sessionData" }
                #expect(sessionData.map(\.url) == [origin.baseURL + "/info.json"])
                #expect(recorder.tally.counts.mediaFetches >= 2, "session data and segments are media fetches")

                // A steering client asks with its own query (_HLS_pathway, _HLS_throughput): it gets the
                // recorded manifests in the order they were recorded.
                let replay = try ReplayOrigin(bundle: bundle)
                _ = replay.answer(method: "GET", target: "/master.m3u8", headers: [])
                let first = replay.answer(method: "GET", target: "/steer/manifest.json?_HLS_pathway=a&_HLS_throughput=5000000", headers: [])
                #expect(first.status == 200 && String(decoding: first.body, as: UTF8.self).contains(#""RELOAD-URI": "reload.json?session=7""#))
                let reload = replay.answer(method: "GET", target: "/steer/reload.json?session=7&_HLS_pathway=a&_HLS_throughput=5000000", headers: [])
                #expect(reload.status == 200 && String(decoding: reload.body, as: UTF8.self).contains(#"["b", "a"]"#))
            }
        }
    }

    /// A VOD ends the recording when its media is whole: the steering manifest does not keep it going.
    @Test func aVODWithSteeringEndsWhenItsMediaIsWhole() async throws {
        try await withTemporaryFolder("recording") { folder in
            let origin = try await Self.origin(live: false)
            try await withTeardown { try? await origin.shutdown() } run: {
                let settings = StreamRecorder.Settings(entry: origin.baseURL + "/master.m3u8", duration: .seconds(60))
                let (ending, bundle, _) = try await StreamRecorderTests.record(settings, in: folder)
                #expect(ending == .complete, "ended with its media, not at the recording's 60 s")
                #expect(bundle.exchanges.contains { $0.kind == "steering" })
            }
        }
    }

    /// A failing steering server is recorded as it answered; an absurd TTL is survived. Either way
    /// the next load is far off and the rest is recorded as usual.
    @Test func aFailingManifestIsRecordedAndAnAbsurdTTLIsSurvived() async throws {
        try await withTemporaryFolder("recording") { folder in
            for (response, status) in [
                (TestOrigin.Response.bytes(status: 503, body: Array("busy".utf8)), 503),
                (.bytes(body: Array(#"{"VERSION": 1, "TTL": 1e308, "PATHWAY-PRIORITY": ["a"]}"#.utf8)), 200),
            ] {
                let origin = try await Self.origin(live: true)
                origin.route("/steer/manifest.json", response)
                // Until the origin has seen the manifest and then three more loads of a live playlist
                // that is reloaded every 0.5–1 s: a TTL of 1 s would have brought a reload by then.
                let settings = StreamRecorder.Settings(entry: origin.baseURL + "/master.m3u8", duration: .seconds(60))
                let (ending, bundle, _) = try await StreamRecorderTests.record(settings, in: folder) { recorder in
                    _ = await origin.waitUntil(timeout: .seconds(60)) { origin in
                        let log = origin.requestLog
                        guard let manifest = log.firstIndex(where: { $0.path == "/steer/manifest.json" }) else { return false }
                        return log[manifest...].filter { $0.path == "/a.m3u8" }.count >= 3 && log.contains { $0.path == "/s1.ts" }
                    }
                    recorder.stop("enough")
                }
                #expect(ending == .stopped("enough"))
                #expect(bundle.exchanges.filter { $0.kind == "steering" }.map(\.status) == [status], "one load, the next 300 s or an hour away")
                #expect(bundle.exchanges.contains { $0.kind == "segment" }, "the rest is recorded as usual")
                try await origin.shutdown()
            }
        }
    }
}
