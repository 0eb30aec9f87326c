import Foundation
import Testing
@testable import HLS

@Suite struct InspectionOutputTests {
    private func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func mediaPlaylistJSON() throws {
        let playlist = try Corpus.playlist("handmade/discontinuities-keys-maps-gap.m3u8")
        let json = try object(playlist.inspectionJSON())
        #expect(json["type"] as? String == "media")
        #expect(json["targetDuration"] as? Int == 6)
        #expect(json["mediaSequence"] as? Int == 1000)
        #expect(json["discontinuitySequence"] as? Int == 5)
        #expect(json["endList"] as? Bool == false)
        #expect(json["playlistType"] == nil)
        let segments = try #require(json["segments"] as? [[String: Any]])
        #expect(segments.count == 7)
        #expect(Set(segments[0].keys) == ["msn", "discontinuitySequence", "duration", "uri", "gap", "key", "map", "programDateTime"])
        #expect(segments[0]["msn"] as? Int == 1000)
        #expect(segments[0]["uri"] as? String == "a/1000.m4s")
        #expect(segments[0]["programDateTime"] as? String == "2025-01-01T00:00:00.000Z")
        #expect((segments[0]["key"] as? [String: String]) == ["method": "AES-128", "uri": "keys/k1.bin", "iv": "0x00000000000000000000000000000001"])
        #expect((segments[3]["map"] as? [String: String]) == ["uri": "init-b.mp4"])
        #expect(segments[3]["key"] == nil)
        #expect(segments[2]["gap"] as? Bool == true)
        #expect(segments[5]["discontinuitySequence"] as? Int == 7)
        #expect(segments[4]["duration"] as? Double == 6)
    }

    @Test func byteRangesInJSON() throws {
        let playlist = try Corpus.playlist("handmade/byterange-implicit-offsets.m3u8")
        let segments = try #require(try object(playlist.inspectionJSON())["segments"] as? [[String: Any]])
        #expect((segments[1]["byteRange"] as? [String: Int]) == ["length": 90000, "offset": 100_720])
    }

    @Test func multivariantJSON() throws {
        let playlist = try Corpus.playlist("handmade/rich-multivariant-crlf-no-final-newline.m3u8")
        let json = try object(playlist.inspectionJSON())
        #expect(json["type"] as? String == "multivariant")
        let variants = try #require(json["variants"] as? [[String: Any]])
        #expect(variants.count == 5)
        #expect(Set(variants[0].keys) == ["index", "bandwidth", "averageBandwidth", "resolution", "codecs", "frameRate", "audio", "subtitles", "uri"])
        #expect(variants[0]["codecs"] as? String == "avc1.640028,mp4a.40.2")
        #expect(variants[0]["frameRate"] as? Double == 60)
        let renditions = try #require(json["renditions"] as? [[String: Any]])
        #expect(renditions[0]["groupId"] as? String == "stereo")
        #expect(renditions[0]["default"] as? Bool == true)
        #expect(renditions[4]["uri"] == nil)
        #expect((json["iframeVariants"] as? [[String: Any]])?.count == 3)
        let sessionData = try #require(json["sessionData"] as? [[String: Any]])
        #expect(sessionData[0]["dataId"] as? String == "com.example.title")
        #expect(sessionData[0]["value"] as? String == "Big, Buck, Bunny")
    }

    @Test func tables() throws {
        let media = try Corpus.playlist("handmade/discontinuities-keys-maps-gap.m3u8").inspectionTable()
        let lines = media.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "Media playlist: 7 segments, 37.500 s, target duration 6 s, media sequence 1000, discontinuity sequence 5, live")
        #expect(lines[2].hasPrefix("MSN   DISC-SEQ  DURATION  FLAGS"))
        #expect(lines[5].hasPrefix("1002  5         6.000     gap,key=AES-128,map,pdt=2025-01-01T00:00:12.000Z"))
        #expect(lines[5].hasSuffix("a/1002.m4s"))
        let multivariant = try Corpus.playlist("rfc8216/8.4-master.m3u8").inspectionTable()
        #expect(multivariant.contains("0  1280000    1000000  -           -          -      http://example.com/low.m3u8"))
    }
}
