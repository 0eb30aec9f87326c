import Foundation
import Testing
@testable import HLS

@Test func parsesAndRoundTripsASmallMediaPlaylist() throws {
    let text = "#EXTM3U\r\n#EXT-X-TARGETDURATION:10\r\n#EXTINF:9.009,\r\nfirst.ts\r\n#EXTINF:9.009,\r\nsecond.ts"
    let playlist = try Playlist(string: text, url: URL(string: "https://example.com/a/b.m3u8"))
    #expect(playlist.kind == .media)
    #expect(playlist.segments.map(\.uri) == ["first.ts", "second.ts"])
    #expect(playlist.text == text)
}
