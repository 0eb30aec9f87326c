import Foundation
import HLS
@testable import Proxy
import Testing
import TestSupport

/// Rules aimed at media sequence numbers of a live stream hold across playlist reloads, and a device
/// URL can pick a preset by name.
@Suite struct LiveTargetingTests {
    @Test func msnRuleHitsTheSameSegmentWhereverItSitsInTheWindow() async throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_700_000_000))
        let rules = #"{"name": "live-503", "description": "t", "rules": [{"id": "msn8", "match": {"kind": "segment", "variant": {"index": 1}, "msn": 8}, "action": {"status": 503}}]}"#
        try await ProxyHarness.withDemo(clock: { clock.now }, rules: [rules]) { proxy, _ in
            let master = try await proxy.get("/live/ts/master.m3u8")
            let variant = try #require(master.text.split(separator: "\n").first { $0.hasPrefix("/~media.v1/") })
            var statuses: [Int: Int] = [:]
            for _ in 0..<4 {
                let media = try Playlist(string: try await proxy.get(String(variant)).text)
                for segment in media.segments where statuses[segment.msn] == nil {
                    statuses[segment.msn] = await proxy.status(segment.uri)
                }
                clock.advance(by: 2)
            }
            #expect(statuses[8] == 503)
            #expect(statuses.filter { $0.value != 200 }.map(\.key) == [8])
            #expect(statuses.count >= 9)
        }
    }

    @Test func deviceURLPicksAPresetByName() async throws {
        try await withTemporaryFolder("presets") { presets in
            let file = presets.url("master-500.json")
            // Each version has a modification time of its own (set, not waited for): the watcher
            // compares them, and a file system may keep them to the second only.
            func write(status: Int, modified: TimeInterval) throws {
                try #"{"name": "master-500", "description": "t", "rules": [{"id": "m", "match": {"kind": "master"}, "action": {"status": \#(status)}}]}"#
                    .write(to: file, atomically: true, encoding: .utf8)
                try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(modified)], ofItemAtPath: file.path)
            }
            try write(status: 500, modified: -60)
            try await ProxyHarness.withDemo(presets: presets.path) { proxy, _ in
                #expect(await proxy.status("/s/tv1+master-500/vod/ts/master.m3u8") == 500)
                #expect(await proxy.status("/s/tv2/vod/ts/master.m3u8") == 200)
                let unknown = try await proxy.get("/s/tv3+master-05/vod/ts/master.m3u8")
                #expect(unknown.status == 404)
                #expect(unknown.text.contains("did you mean \"master-500\""))

                // An edited preset is picked up by the watcher `hlschaos serve` runs (here every 50 ms):
                // wait until a device gets the edited answer.
                let watcher = Task { await proxy.server.rules.watch(every: .milliseconds(50)) }
                defer { watcher.cancel() }
                try write(status: 503, modified: 0)
                var device = 4
                let edited = await eventually {
                    device += 1
                    return await proxy.status("/s/tv\(device)+master-500/vod/ts/master.m3u8") == 503
                }
                #expect(edited, "the edited preset was not picked up")
            }
        }
    }
}
