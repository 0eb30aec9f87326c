import Addressing
import Foundation
import HLS
import Testing
import TestSupport

/// The one table from a URI's place in a playlist to what a request for it fetches.
@Suite struct URIPlaceKindTests {
    @Test func aMapPreloadHintIsAnInitSection() throws {
        let playlist = try Playlist(bytes: Array(PlaylistFixtures.lowLatencyWithMapHint.utf8), url: URL(string: "https://cdn.test/live/v1/index.m3u8"))
        let kinds = playlist.uriReferences.map { ($0.original, ResourceKind($0.facts)) }
        #expect(kinds.map(\.0) == ["key.bin", "init.mp4", "seg10.m4s", "part11.0.m4s", "part11.1.m4s", "init2.mp4", "../v2/index.m3u8"])
        #expect(kinds.map(\.1) == [.key, .`init`, .segment, .part, .part, .`init`, nil])
        let tags = playlist.uriReferences.map { ResourceTag.Kind($0.facts) }
        #expect(tags == [.key, .initSection, .segment, .part, .part, .initSection, .media])
    }

    @Test func whatAMasterNames() throws {
        let master = """
            #EXTM3U
            #EXT-X-CONTENT-STEERING:SERVER-URI="steer.json"
            #EXT-X-SESSION-DATA:DATA-ID="com.example",URI="data.json"
            #EXT-X-SESSION-KEY:METHOD=AES-128,URI="session.key"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="English",URI="audio/index.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=800000,AUDIO="a"
            v0/index.m3u8
            #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=100000,URI="iframe/index.m3u8"

            """
        let playlist = try Playlist(bytes: Array(master.utf8), url: URL(string: "https://cdn.test/live/master.m3u8"))
        let kinds = Dictionary(uniqueKeysWithValues: playlist.uriReferences.map { ($0.original, ResourceKind($0.facts)) })
        #expect(kinds == [
            "steer.json": .steering, "data.json": .sessionData, "session.key": .key, "audio/index.m3u8": .media,
            "v0/index.m3u8": .media, "iframe/index.m3u8": .media,
        ])
    }
}
