import HLS
import Testing
@testable import Chaos

/// Each LL-HLS damage on a small LL media playlist, read back with the HLS parser: what a player
/// would see.
@Suite struct LowLatencyDamageTests {
    static func playlist(skip: Bool = false) -> String {
        var lines = [
            "#EXTM3U", "#EXT-X-VERSION:9", "#EXT-X-TARGETDURATION:2",
            "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=12.000,PART-HOLD-BACK=1.218",
            "#EXT-X-PART-INF:PART-TARGET=0.406", "#EXT-X-MEDIA-SEQUENCE:100", "#EXT-X-MAP:URI=\"init.mp4\"",
        ]
        let first = skip ? 103 : 100
        if skip { lines.append("#EXT-X-SKIP:SKIPPED-SEGMENTS=3") }
        for msn in first...107 {
            lines.append("#EXT-X-PROGRAM-DATE-TIME:2026-11-26T10:00:\(String(format: "%02d", (msn - 100) * 2)).000Z")
            if msn >= 106 {
                lines += (0..<5).map { "#EXT-X-PART:DURATION=0.400,URI=\"part-\(msn).\($0).m4s\"" + ($0 == 0 ? ",INDEPENDENT=YES" : "") }
            }
            lines += ["#EXTINF:2.000,", "seg-\(msn).m4s"]
        }
        lines += ["#EXT-X-PART:DURATION=0.400,URI=\"part-108.0.m4s\",INDEPENDENT=YES", "#EXT-X-PART:DURATION=0.400,URI=\"part-108.1.m4s\"",
                  "#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"media/part-108.2.m4s\"",
                  "#EXT-X-RENDITION-REPORT:URI=\"../v1/index.m3u8\",LAST-MSN=108,LAST-PART=1"]
        return lines.joined(separator: "\n") + "\n"
    }

    func damaged(_ damage: LowLatencyDamage, skip: Bool = false) throws -> (text: String, playlist: Playlist) {
        let text = String(decoding: damage.apply(to: Array(Self.playlist(skip: skip).utf8)), as: UTF8.self)
        return (text, try Playlist(string: text))
    }

    @Test func partHoldBackShortIsThePartTarget() throws {
        let (_, playlist) = try damaged(.partHoldBackShort)
        #expect(playlist.serverControl?.partHoldBack == 0.406)
        #expect(playlist.serverControl?.canSkipUntil == 12)
    }

    @Test func skipTooManyLeavesOneCompleteSegmentAtItsMSN() throws {
        let (_, playlist) = try damaged(.skipTooMany, skip: true)
        #expect(playlist.skip?.skippedSegments == 7)
        #expect(playlist.segments.map(\.msn) == [107])
        #expect(playlist.segments.first?.parts.count == 5)
        #expect(playlist.trailingParts.count == 2 && playlist.preloadHints.count == 1)
        // A full playlist is left alone: there was no delta update to skip more in.
        #expect(LowLatencyDamage.skipTooMany.apply(to: Array(Self.playlist().utf8)) == Array(Self.playlist().utf8))
    }

    @Test func skipUnaskedTurnsAFullPlaylistIntoADeltaUpdate() throws {
        let (_, playlist) = try damaged(.skipUnasked)
        #expect(playlist.skip?.skippedSegments == 4)
        #expect(playlist.mediaSequence == 100)
        #expect(playlist.segments.map(\.msn) == [104, 105, 106, 107])
        // A delta update stays as it is.
        let delta = Array(Self.playlist(skip: true).utf8)
        #expect(LowLatencyDamage.skipUnasked.apply(to: delta) == delta)
    }

    @Test func renditionReportsFallTwoSegmentsBehind() throws {
        let (text, _) = try damaged(.renditionReportsBehind)
        #expect(text.contains("#EXT-X-RENDITION-REPORT:URI=\"../v1/index.m3u8\",LAST-MSN=106,LAST-PART=1\n"))
    }

    @Test func partsDroppedLeavesTheSegmentInProgressWithItsHintOnly() throws {
        let (_, playlist) = try damaged(.partsDropped)
        #expect(playlist.trailingParts.isEmpty)
        #expect(playlist.segments.last?.parts.count == 5, "complete segments keep their parts")
        #expect(playlist.preloadHints.first?.uri == "media/part-108.2.m4s")
    }

    @Test func hintNeverPublishedRenamesTheLastPathComponent() throws {
        let (_, playlist) = try damaged(.hintNeverPublished)
        #expect(playlist.preloadHints.first?.uri == "media/never-part-108.2.m4s")
    }

    @Test func partGapMarksTheLastListedPart() throws {
        let (text, _) = try damaged(.partGap)
        #expect(text.contains("#EXT-X-PART:DURATION=0.400,URI=\"part-108.1.m4s\",GAP=YES\n"))
        #expect(text.components(separatedBy: "GAP=YES").count == 2)
    }
}
