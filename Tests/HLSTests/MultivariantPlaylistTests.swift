import Foundation
import Testing
@testable import HLS

@Suite struct MultivariantPlaylistTests {
    static let rich = "handmade/rich-multivariant-crlf-no-final-newline.m3u8"

    @Test func variantsInDocumentOrderWithTheirAttributes() throws {
        let playlist = try Corpus.playlist(Self.rich)
        #expect(playlist.kind == .multivariant)
        #expect(playlist.variants.map(\.index) == [0, 1, 2, 3, 4])
        #expect(playlist.variants.map(\.bandwidth) == [6_214_307, 3_000_000, 7_000_000, 800_000, 3_000_000])
        let first = playlist.variants[0]
        #expect(first.averageBandwidth == 5_500_000)
        #expect(first.resolution == "1920x1080")
        #expect(first.codecs == "avc1.640028,mp4a.40.2")  // quoted value containing a comma
        #expect(first.frameRate == 60)
        #expect(first.audio == "stereo" && first.subtitles == "subs" && first.closedCaptions == "cc")
        #expect(first.score == 2 && first.pathwayID == "primary")
        #expect(first.attributes["HDCP-LEVEL"] == "TYPE-0")
        #expect(first.uri == "video/1080p/prog_index.m3u8")
        #expect(first.line == 16)
        #expect(playlist.variants[2].closedCaptions == "NONE")
        #expect(playlist.variants[4].uri == "https://backup.example.com/video/720p/prog_index.m3u8")
    }

    @Test func renditionsIFrameVariantsSessionDataKeysAndSteering() throws {
        let playlist = try Corpus.playlist(Self.rich)
        #expect(playlist.renditions.map(\.name) == ["English, stereo", "Français", "English 5.1", "English", "English CC"])
        #expect(playlist.renditions.map(\.type) == ["AUDIO", "AUDIO", "AUDIO", "SUBTITLES", "CLOSED-CAPTIONS"])
        #expect(playlist.renditions.map(\.isDefault) == [true, false, true, false, false])
        #expect(playlist.renditions[4].uri == nil)
        #expect(playlist.renditions[1].language == "fr")
        #expect(playlist.iFrameVariants.map(\.bandwidth) == [500_000, 250_000, 80000])
        #expect(playlist.iFrameVariants.map(\.uri) == ["video/1080p/iframe_index.m3u8", "video/720p/iframe_index.m3u8",
                                                      "video/360p/iframe_index.m3u8"])
        #expect(playlist.sessionData.map(\.dataID) == ["com.example.title", "com.example.lyrics"])
        #expect(playlist.sessionData[0].value == "Big, Buck, Bunny")
        #expect(playlist.sessionData[1].uri == "lyrics.json")
        #expect(playlist.sessionKeys == [Key(method: "SAMPLE-AES", uri: "skd://key-server/asset-42", iv: nil,
                                             keyFormat: "com.apple.streamingkeydelivery", keyFormatVersions: "1")])
        #expect(playlist.contentSteering == ContentSteering(serverURI: "https://steer.example.com/manifest.json?id=42",
                                                            pathwayID: "primary"))
        #expect(playlist.segments.isEmpty)
        #expect(playlist.warnings.isEmpty)
    }

    @Test func crlfAndMissingFinalNewlineSurviveAnEdit() throws {
        var playlist = try Corpus.playlist(Self.rich)
        let original = try Corpus.bytes(Self.rich)
        playlist.removeVariants { $0.index == 4 }
        let text = playlist.text
        #expect(!text.contains("backup.example.com"))
        #expect(!text.hasSuffix("\n"))
        #expect(text.hasSuffix("#EXT-X-UNKNOWN-VENDOR-TAG:FOO=\"bar, baz\",X=1"))
        #expect(!text.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
        // Exactly the variant's two lines (and their CRLFs) are gone; every other byte is the same.
        var lines = String(decoding: original, as: UTF8.self).components(separatedBy: "\r\n")
        let uriLine = try #require(lines.firstIndex(of: "https://backup.example.com/video/720p/prog_index.m3u8"))
        lines.removeSubrange((uriLine - 1)...uriLine)
        #expect(text == lines.joined(separator: "\r\n"))
    }

    @Test func ffmpegMultivariantPlaylist() throws {
        let playlist = try Corpus.playlist("ffmpeg/ffmpeg-master.m3u8")
        #expect(playlist.variants.map(\.uri) == ["stream_0.m3u8", "stream_1.m3u8", "stream_English.m3u8"])
        #expect(playlist.variants.map(\.audio) == ["group_aud", "group_aud", "group_aud"])
        #expect(playlist.renditions.map(\.uri) == ["stream_English.m3u8"])
    }

    @Test func rfcExampleWithIFrames() throws {
        let playlist = try Corpus.playlist("rfc8216/8.5-master-iframes.m3u8")
        #expect(playlist.variants.count == 4)
        #expect(playlist.iFrameVariants.map(\.bandwidth) == [86000, 150_000, 550_000])
    }

    @Test func variantWithoutBandwidthIsReportedWithItsLine() throws {
        let text = "#EXTM3U\n#EXT-X-STREAM-INF:RESOLUTION=1x1\na.m3u8\n"
        let playlist = try Playlist(string: text)
        #expect(playlist.variants.count == 1)
        #expect(playlist.warnings.map(\.description) == ["line 2: EXT-X-STREAM-INF: missing required attribute BANDWIDTH"])
        #expect(throws: PlaylistError.self) { _ = try Playlist(string: text, strict: true) }
    }
}
