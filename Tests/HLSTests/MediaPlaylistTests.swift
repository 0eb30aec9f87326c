import Foundation
import Testing
@testable import HLS

@Suite struct MediaPlaylistTests {
    @Test func ffmpegTransportStreamPlaylist() throws {
        let playlist = try Corpus.playlist("ffmpeg/ffmpeg-ts-vod.m3u8")
        #expect(playlist.kind == .media)
        #expect(playlist.targetDuration == 2)
        #expect(playlist.playlistType == "VOD")
        #expect(playlist.endList)
        #expect(playlist.segments.map(\.uri) == (0..<4).map { "ffmpeg-ts-vod\($0).ts" })
        #expect(playlist.segments.map(\.msn) == [0, 1, 2, 3])
        #expect(playlist.segments.map(\.startTime) == [0, 2, 4, 6])
        #expect(playlist.segments.allSatisfy { $0.duration == 2 && $0.key == nil && $0.map == nil })
    }

    @Test func byteRangesResolveImplicitOffsets() throws {
        let playlist = try Corpus.playlist("handmade/byterange-implicit-offsets.m3u8")
        #expect(playlist.segments.map(\.byteRange) == [
            ByteRange(length: 100_000, offset: 720),
            ByteRange(length: 90_000, offset: 100_720),
            ByteRange(length: 95_000, offset: 190_720),
            ByteRange(length: 5000, offset: 0),
            ByteRange(length: 6000, offset: 5000),
        ])
        #expect(playlist.segments.first?.map == MapInfo(uri: "media.mp4", byteRange: ByteRange(length: 720, offset: 0)))
        #expect(playlist.warnings.isEmpty)
    }

    @Test func implicitOffsetAfterADifferentResourceIsAnError() throws {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\n#EXT-X-BYTERANGE:10@0\na.mp4\n#EXTINF:4,\n#EXT-X-BYTERANGE:10\nb.mp4\n"
        let lenient = try Playlist(string: text)
        #expect(lenient.warnings.map(\.kind) == [.invalidByteRange])
        #expect(lenient.warnings.first?.line == 7)  // the EXT-X-BYTERANGE line
        #expect(throws: PlaylistError(line: 7, kind: .invalidByteRange,
                                      message: "EXT-X-BYTERANGE without offset, but the previous segment is not a sub-range of b.mp4")) {
            _ = try Playlist(string: text, strict: true)
        }
    }

    @Test func ffmpegSingleFilePlaylistsHaveContiguousRanges() throws {
        let playlist = try Corpus.playlist("ffmpeg/ffmpeg-fmp4-single-file.m3u8")
        let ranges = playlist.segments.compactMap(\.byteRange)
        #expect(ranges.count == playlist.segments.count)
        for (previous, next) in zip(ranges, ranges.dropFirst()) {
            #expect(previous.offset + previous.length == next.offset)
        }
        #expect(playlist.segments.allSatisfy { $0.map?.byteRange?.offset == 0 })
    }

    @Test func keyAndMapStayInEffectUntilReplaced() throws {
        let playlist = try Corpus.playlist("handmade/discontinuities-keys-maps-gap.m3u8")
        let segments = playlist.segments
        #expect(segments.count == 7)
        #expect(segments[0...2].allSatisfy { $0.key?.method == "AES-128" && $0.key?.uri == "keys/k1.bin" })
        #expect(segments[0].key?.iv == "0x00000000000000000000000000000001")
        #expect(segments[3...4].allSatisfy { $0.key == nil })  // METHOD=NONE clears
        #expect(segments[5...6].allSatisfy { $0.key?.method == "SAMPLE-AES" && $0.key?.keyFormat == "com.apple.streamingkeydelivery" })
        #expect(segments.map { $0.map?.uri } == ["init-a.mp4", "init-a.mp4", "init-a.mp4", "init-b.mp4", "init-b.mp4", "init-b.mp4", "init-b.mp4"])
        #expect(segments.map(\.bitrate) == [1500, 1500, 1500, 1500, 1500, 2200, 2200])
    }

    @Test func discontinuitySequenceCountsDiscontinuities() throws {
        let playlist = try Corpus.playlist("handmade/discontinuities-keys-maps-gap.m3u8")
        #expect(playlist.mediaSequence == 1000)
        #expect(playlist.discontinuitySequence == 5)
        #expect(playlist.segments.map(\.msn) == Array(1000...1006))
        #expect(playlist.segments.map(\.discontinuitySequence) == [5, 5, 5, 6, 6, 7, 7])
        #expect(playlist.segments.map(\.discontinuity) == [false, false, false, true, false, true, false])
        #expect(playlist.segments.map(\.gap) == [false, false, true, false, false, false, false])
        #expect(playlist.segments[0].title == "Title with, commas")
    }

    @Test func programDateTimeIsExtrapolatedAndResetByANewTag() throws {
        let playlist = try Corpus.playlist("handmade/discontinuities-keys-maps-gap.m3u8")
        let start = try #require(ValueParsing.dateTime("2025-01-01T00:00:00.000Z"))
        let dates = playlist.segments.map(\.programDateTime)
        #expect(dates[0] == start)
        #expect(dates[1] == start.addingTimeInterval(6))
        #expect(dates[2] == start.addingTimeInterval(12))
        #expect(dates[3] == start.addingTimeInterval(18))
        // 00:10 at +01:00 is 23:10 the day before in UTC.
        let reset = try #require(ValueParsing.dateTime("2024-12-31T23:10:00Z"))
        #expect(dates[4] == reset)
        #expect(dates[5] == reset.addingTimeInterval(6))
        #expect(dates[6] == reset.addingTimeInterval(10))
    }

    @Test func programDateTimeFormats() throws {
        #expect(ValueParsing.dateTime("2026-11-23T04:07:57.858+0000")?.timeIntervalSince1970 == 1_795_406_877.858)
        #expect(ValueParsing.dateTime("1970-01-01T00:00:00Z")?.timeIntervalSince1970 == 0)
        #expect(ValueParsing.dateTime("1970-01-01T01:00:00+01:00")?.timeIntervalSince1970 == 0)
        #expect(ValueParsing.dateTime("2024-02-29T12:00:00.5-05:30")?.timeIntervalSince1970 == 1_709_227_800.5)
        #expect(ValueParsing.dateTime("2024-13-01T00:00:00Z") == nil)
        #expect(ValueParsing.dateTime("yesterday") == nil)
    }

    @Test func liveWindowFromFfmpegHasNoEndListAndStartsAtItsSequence() throws {
        let playlist = try Corpus.playlist("ffmpeg/ffmpeg-live-sliding-snapshot.m3u8")
        #expect(!playlist.endList)
        #expect(playlist.playlistType == nil)
        #expect(playlist.segments.first?.msn == playlist.mediaSequence)
        #expect(playlist.segments.count == 4)
        #expect(playlist.nextMSN == playlist.mediaSequence + 4)
    }

    /// What a blocking reload waits for (rfc8216bis §6.2.5.2), against the spec's example: segments
    /// up to 272 complete, parts 0–2 of 273 listed.
    @Test func theEdgeSaysWhatABlockingReloadGetsAndAsksForNext() throws {
        let playlist = try Corpus.playlist("rfc8216bis/ll-hls-media.m3u8")
        #expect(playlist.edge == Playlist.Edge(lastComplete: 272, trailingParts: 3))
        #expect(playlist.nextPartToAskFor.map { [$0.msn, $0.part] } == [273, 3])
        let edge = playlist.edge
        #expect(edge.holds(msn: 272, part: nil) && edge.holds(msn: 200, part: nil) && edge.holds(msn: 272, part: 11))
        #expect(edge.holds(msn: 273, part: 2))
        #expect(!edge.holds(msn: 273, part: 3))
        #expect(!edge.holds(msn: 273, part: nil), "segment 273 is not complete")
        #expect(!edge.holds(msn: 274, part: 0))
        // A playlist without parts asks for nothing.
        #expect(try Playlist(string: "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\na.ts\n").nextPartToAskFor == nil)
    }

    @Test func lowLatencyPlaylistHasPartsHintsAndReports() throws {
        let playlist = try Corpus.playlist("rfc8216bis/ll-hls-media.m3u8")
        #expect(playlist.partTarget == 0.33334)
        #expect(playlist.serverControl == ServerControl(canSkipUntil: 12, canSkipDateRanges: false, holdBack: nil,
                                                        partHoldBack: 1, canBlockReload: true))
        #expect(playlist.segments.map(\.msn) == Array(266...272))
        #expect(playlist.segments[5].parts.count == 12)
        #expect(playlist.segments[5].parts[0] == Part(duration: 0.33334, uri: "filePart271.0.mp4", independent: true,
                                                      byteRange: nil, gap: false, line: playlist.segments[5].parts[0].line))
        #expect(playlist.segments[0].parts.isEmpty)
        #expect(playlist.trailingParts.map(\.uri) == ["filePart273.0.mp4", "filePart273.1.mp4", "filePart273.2.mp4"])
        #expect(playlist.preloadHints.map(\.uri) == ["filePart273.3.mp4"])
        #expect(playlist.renditionReports.map(\.lastMSN) == [273, 273])
        let hint = try #require(playlist.uriReferences.first { $0.kind == .preloadHint })
        #expect(hint.msn == 273)
        let parts = playlist.uriReferences.filter { $0.kind == .part }
        #expect(parts.first?.msn == 271 && parts.first?.partIndex == 0)
        #expect(parts.last?.msn == 273 && parts.last?.partIndex == 2)
    }

    @Test func skipCountsSkippedSegmentsInTheMSN() throws {
        let playlist = try Corpus.playlist("rfc8216bis/ll-hls-delta-update-skip.m3u8")
        #expect(playlist.skip?.skippedSegments == 3)
        #expect(playlist.segments.map(\.msn) == [269, 270, 271])
        #expect(playlist.segments.map(\.uri) == ["fileSequence269.mp4", "fileSequence270.mp4", "fileSequence271.mp4"])
        #expect(playlist.nextMSN == 272)
    }

    @Test func partByteRangesFollowEachOther() throws {
        let playlist = try Corpus.playlist("rfc8216bis/ll-hls-byterange-parts.m3u8")
        #expect(playlist.segments[0].parts.map(\.byteRange) == [
            ByteRange(length: 20000, offset: 0), ByteRange(length: 21000, offset: 20000),
            ByteRange(length: 19000, offset: 41000), ByteRange(length: 20500, offset: 60000),
        ])
        #expect(playlist.preloadHints.first?.byteRangeStart == 20000)
    }

    @Test func variablesAreSubstitutedWhenReadingButKeptWhenWriting() throws {
        let url = "https://origin.example.com/p/index.m3u8?token=s3cr3t"
        let bytes = try Corpus.bytes("rfc8216bis/define-variables.m3u8")
        let playlist = try Playlist(bytes: bytes, url: URL(string: url), strict: true)
        #expect(playlist.segments.map(\.uri) == ["https://cdn.example.com/live/event-42/seg0.m4s?token=s3cr3t",
                                                 "live/event-42/seg1.m4s"])
        #expect(playlist.segments[0].map?.uri == "https://cdn.example.com/live/event-42/init.mp4")
        #expect(playlist.serialized() == bytes)
        #expect(playlist.uriReferences.map(\.absoluteString) == [
            "https://cdn.example.com/live/event-42/init.mp4",
            "https://cdn.example.com/live/event-42/seg0.m4s?token=s3cr3t",
            "https://origin.example.com/p/live/event-42/seg1.m4s",
        ])
    }

    @Test func missingQueryParameterAndUndefinedVariableAreReported() throws {
        let text = "#EXTM3U\n#EXT-X-DEFINE:QUERYPARAM=\"token\"\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\n{$nope}/a.ts\n"
        let playlist = try Playlist(string: text, url: URL(string: "https://h/x.m3u8"))
        #expect(playlist.warnings.map(\.kind) == [.undefinedVariable, .undefinedVariable])
        #expect(playlist.warnings.map(\.line) == [2, 5])
        #expect(playlist.segments.first?.uri == "{$nope}/a.ts")
    }
}
