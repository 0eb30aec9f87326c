import Foundation
import HLS
@testable import Recorder
import Testing
import TestSupport

/// What the recorder fetches of a media playlist, each named by what the playlist says it is.
@Suite struct RecorderMediaItemsTests {
    @Test func aLivePlaylistsPreloadHintsNameAPartAndAnInitSection() throws {
        let text = PlaylistFixtures.lowLatencyWithMapHint
        let base = "https://cdn.test/live/v1/"
        let playlist = try Playlist(bytes: Array(text.utf8), url: URL(string: base + "index.m3u8"))
        let items = StreamRecorder.mediaItems(of: playlist, above: nil, live: true)
        #expect(items.map { "\($0.kind) \($0.url.dropFirst(base.count))" } == [
            "init init.mp4", "key key.bin", "segment seg10.m4s", "part part11.0.m4s", "part part11.1.m4s", "init init2.mp4",
        ])
    }
}
