import Foundation
import HLS
@testable import Recorder
import Testing

/// What the recorder fetches of a media playlist, each named by what the playlist says it is.
@Suite struct RecorderMediaItemsTests {
    @Test func aLivePlaylistsPreloadHintsNameAPartAndAnInitSection() throws {
        let text = """
            #EXTM3U
            #EXT-X-VERSION:9
            #EXT-X-TARGETDURATION:4
            #EXT-X-PART-INF:PART-TARGET=1.0
            #EXT-X-MEDIA-SEQUENCE:10
            #EXT-X-KEY:METHOD=AES-128,URI="key.bin"
            #EXT-X-MAP:URI="init.mp4"
            #EXTINF:4.0,
            seg10.m4s
            #EXT-X-PART:DURATION=1.0,URI="part11.0.m4s"
            #EXT-X-PRELOAD-HINT:TYPE=PART,URI="part11.1.m4s"
            #EXT-X-PRELOAD-HINT:TYPE=MAP,URI="init2.mp4"

            """
        let base = "https://cdn.test/live/v1/"
        let playlist = try Playlist(bytes: Array(text.utf8), url: URL(string: base + "index.m3u8"))
        let items = StreamRecorder.mediaItems(of: playlist, above: nil, live: true)
        #expect(items.map { "\($0.kind) \($0.url.dropFirst(base.count))" } == [
            "init init.mp4", "key key.bin", "segment seg10.m4s", "part part11.0.m4s", "part part11.1.m4s", "init init2.mp4",
        ])
    }
}
