import Foundation
import Testing
@testable import HLS

@Suite struct EditTests {
    @Test func addAndRemoveGapTags() throws {
        var playlist = try Corpus.playlist("ffmpeg/ffmpeg-ts-vod.m3u8")
        let original = playlist.serialized()
        playlist.addTag("#EXT-X-GAP", toSegmentsWhere: { $0.msn == 2 })
        #expect(playlist.segments.map(\.gap) == [false, false, true, false])
        #expect(playlist.text.contains("#EXTINF:2.000000,\n#EXT-X-GAP\nffmpeg-ts-vod2.ts\n"))
        playlist.addTag("#EXT-X-GAP", toSegmentsWhere: { $0.msn == 2 })  // no duplicate
        #expect(playlist.lineCount == (try Playlist(bytes: original)).lineCount + 1)
        playlist.removeTag(named: "EXT-X-GAP", fromSegmentsWhere: { _ in true })
        #expect(playlist.serialized() == original)
    }

    @Test func removeSegmentsKeepsKeysMapsAndMovesTheDiscontinuity() throws {
        var playlist = try Corpus.playlist("handmade/discontinuities-keys-maps-gap.m3u8")
        playlist.removeSegments { $0.msn == 1003 || $0.msn == 1000 }
        #expect(playlist.segments.map(\.uri) == ["a/1001.m4s", "a/1002.m4s", "b/1004.m4s", "../c/1005.m4s?sig=abc", "//other.example.com/c/1006.m4s"])
        // MSNs are positional: the header is not touched by removeSegments.
        #expect(playlist.segments.map(\.msn) == Array(1000...1004))
        // Key and map tags of removed segments stay in effect.
        #expect(playlist.segments[0].key?.uri == "keys/k1.bin")
        #expect(playlist.segments[2].map?.uri == "init-b.mp4")
        #expect(playlist.segments[2].key == nil)
        // The removed segment's discontinuity moved to the next one, and dates stay correct.
        #expect(playlist.segments.map(\.discontinuity) == [false, false, true, true, false])
        let start = try #require(ValueParsing.dateTime("2025-01-01T00:00:00.000Z"))
        #expect(playlist.segments[0].programDateTime == start.addingTimeInterval(6))
        #expect(playlist.text.contains("#EXT-X-PROGRAM-DATE-TIME:2025-01-01T00:00:06.000Z"))
        #expect(playlist.warnings.isEmpty)
    }

    @Test func removeSegmentsPinsImplicitByteRangeOffsets() throws {
        var playlist = try Corpus.playlist("handmade/byterange-implicit-offsets.m3u8")
        let before = playlist.segments
        playlist.removeSegments { $0.index == 1 }
        #expect(playlist.segments.map(\.byteRange) == [before[0].byteRange, before[2].byteRange, before[3].byteRange, before[4].byteRange])
        #expect(playlist.text.contains("#EXT-X-BYTERANGE:95000@190720"))
        #expect(playlist.warnings.isEmpty)
    }

    @Test func removeLeadingSegmentsSlidesTheWindow() throws {
        var playlist = try Corpus.playlist("handmade/discontinuities-keys-maps-gap.m3u8")
        let before = playlist.segments
        playlist.removeLeadingSegments(4)
        #expect(playlist.mediaSequence == 1004)
        #expect(playlist.discontinuitySequence == 6)
        #expect(playlist.segments.map(\.msn) == [1004, 1005, 1006])
        #expect(playlist.segments.map(\.discontinuitySequence) == before.suffix(3).map(\.discontinuitySequence))
        #expect(playlist.segments.map(\.programDateTime) == before.suffix(3).map(\.programDateTime))
        #expect(playlist.segments.map(\.key) == before.suffix(3).map(\.key))
        #expect(playlist.segments.map(\.map) == before.suffix(3).map(\.map))
    }

    @Test func removeVariantsRenditionsAndIFrames() throws {
        var playlist = try Corpus.playlist("handmade/rich-multivariant-crlf-no-final-newline.m3u8")
        playlist.removeRenditions { $0.groupID == "surround" }
        #expect(playlist.renditions.count == 4)
        // The variant that named the removed group loses the AUDIO attribute, nothing else.
        #expect(playlist.variants[2].audio == nil)
        #expect(playlist.line(playlist.variants[2].line - 1) ==
                "#EXT-X-STREAM-INF:BANDWIDTH=7000000,CODECS=\"avc1.640028,ec-3\",RESOLUTION=1920x1080,FRAME-RATE=60.000,SUBTITLES=\"subs\",CLOSED-CAPTIONS=NONE,PATHWAY-ID=\"primary\"")
        playlist.removeVariants { $0.bandwidth > 5_000_000 }
        #expect(playlist.variants.map(\.bandwidth) == [3_000_000, 800_000, 3_000_000])
        #expect(playlist.variants.map(\.index) == [0, 1, 2])
        playlist.removeIFrameVariants { $0.bandwidth < 100_000 }
        #expect(playlist.iFrameVariants.count == 2)
        let reparsed = try Playlist(bytes: playlist.serialized(), strict: true)
        #expect(reparsed.variants == playlist.variants)
    }

    @Test func headerTagsAndEndList() throws {
        var playlist = try Corpus.playlist("ffmpeg/ffmpeg-live-sliding-snapshot.m3u8")
        playlist.setHeaderTag("#EXT-X-MEDIA-SEQUENCE", value: "12")
        playlist.setHeaderTag("EXT-X-TARGETDURATION", value: "4")
        playlist.setHeaderTag("#EXT-X-INDEPENDENT-SEGMENTS", value: "")
        playlist.setEndList(true)
        #expect(playlist.mediaSequence == 12 && playlist.targetDuration == 4 && playlist.independentSegments && playlist.endList)
        #expect(playlist.text.hasPrefix("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-INDEPENDENT-SEGMENTS\n#EXT-X-TARGETDURATION:4\n#EXT-X-MEDIA-SEQUENCE:12\n"))
        #expect(playlist.text.hasSuffix("ffmpeg-live-sliding5.ts\n#EXT-X-ENDLIST\n"))
        playlist.setEndList(false)
        playlist.setHeaderTag("#EXT-X-INDEPENDENT-SEGMENTS", value: nil)
        #expect(!playlist.endList && !playlist.independentSegments)
    }

    @Test func endListOnAPlaylistWithoutFinalNewline() throws {
        var playlist = try Playlist(string: "#EXTM3U\r\n#EXT-X-TARGETDURATION:2\r\n#EXTINF:2,\r\na.ts")
        playlist.setEndList(true)
        #expect(playlist.text == "#EXTM3U\r\n#EXT-X-TARGETDURATION:2\r\n#EXTINF:2,\r\na.ts\r\n#EXT-X-ENDLIST")
        playlist.setEndList(false)
        #expect(playlist.text == "#EXTM3U\r\n#EXT-X-TARGETDURATION:2\r\n#EXTINF:2,\r\na.ts")
    }

    @Test func insertLinesIsRawButCannotSplitLines() throws {
        var playlist = try Corpus.playlist("ffmpeg/ffmpeg-ts-vod.m3u8")
        playlist.insertLines(["#EXT-X-BROKEN:\"", "x\ny"], afterLine: 0)
        #expect(playlist.line(1) == "#EXT-X-BROKEN:\"")
        #expect(playlist.line(2) == "x%0Ay")
        // A URI line without EXTINF still counts as a segment, with a warning.
        #expect(playlist.segments.count == 5)
        #expect(playlist.warnings.map(\.kind).contains(.missingTag))
    }
}
