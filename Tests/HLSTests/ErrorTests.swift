import Foundation
import Testing
@testable import HLS

@Suite struct ErrorTests {
    @Test(arguments: ["", "hello", "<html>#EXTM3U</html>", "\n\n", "#EXT-X-VERSION:3\n#EXTM3U\n"])
    func nonHLSInputThrowsNotHLS(text: String) {
        #expect {
            _ = try Playlist(string: text)
        } throws: { error in
            (error as? PlaylistError)?.kind == .notHLS
        }
    }

    @Test func lenientModeToleratesBOMAndLeadingBlankLinesStrictDoesNot() throws {
        let text = "\u{FEFF}\n#EXTM3U\n#EXT-X-TARGETDURATION:1\n"
        let playlist = try Playlist(string: text)
        #expect(playlist.text == text)
        #expect(throws: PlaylistError.self) { _ = try Playlist(string: text, strict: true) }
    }

    @Test func segmentLongerThanTheTargetDurationIsAWarningOrAStrictError() throws {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.4,\na.ts\n#EXTINF:2.6,\nb.ts\n"
        let lenient = try Playlist(string: text)
        #expect(lenient.warnings.map(\.line) == [6])
        #expect(lenient.warnings.first?.kind == .invalidValue)
        #expect(lenient.text == text)
        #expect {
            _ = try Playlist(string: text, strict: true)
        } throws: { error in
            (error as? PlaylistError)?.description.contains("EXT-X-TARGETDURATION 2") == true
        }
    }

    @Test func malformedTagsAreReportedWithLineAndReason() throws {
        let text = """
        #EXTM3U
        #EXT-X-TARGETDURATION:abc
        #EXT-X-KEY:METHOD=AES-128
        #EXT-X-MAP:URI="unterminated
        #EXTINF:x,
        a.ts
        #EXT-X-PLAYLIST-TYPE:LIVE
        #EXT-X-STREAM-INF:BANDWIDTH=1

        """
        let playlist = try Playlist(string: text)
        #expect(playlist.warnings.map(\.description) == [
            "line 2: EXT-X-TARGETDURATION: not a decimal integer: abc",
            "line 3: EXT-X-KEY: missing required attribute URI",
            "line 4: EXT-X-MAP: attribute URI: quoted string is not terminated",
            "line 5: EXTINF: duration is not a decimal number: x",
            "line 7: EXT-X-PLAYLIST-TYPE must appear before the first media segment",
            "line 7: EXT-X-PLAYLIST-TYPE must be VOD or EVENT, found LIVE",
            "line 8: EXT-X-STREAM-INF: media playlist and multivariant playlist tags are mixed",
            "line 8: EXT-X-STREAM-INF is not followed by a URI line",
        ])
        #expect(playlist.warnings.map(\.kind) == [.invalidValue, .missingAttribute, .malformedAttribute, .invalidValue,
                                                  .unexpectedTag, .invalidValue, .mixedPlaylistKinds, .missingURI])
        #expect(playlist.serialized() == Array(text.utf8))
        #expect(throws: PlaylistError(line: 2, kind: .invalidValue, message: "EXT-X-TARGETDURATION: not a decimal integer: abc")) {
            _ = try Playlist(string: text, strict: true)
        }
    }

    @Test func fuzzerFindingsStayFixed() throws {
        let folder = Corpus.directory.appendingPathComponent("fuzz-regressions")
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
        #expect(!files.isEmpty)
        for file in files {
            let bytes = Array(try Data(contentsOf: file))
            _ = try? Playlist(bytes: bytes, strict: true)
            if var playlist = try? Playlist(bytes: bytes, url: URL(string: "https://o.example/a/b.m3u8")) {
                #expect(playlist.serialized() == bytes, "\(file.lastPathComponent)")
                playlist.rewriteURIs { "r/" + $0.original }
                playlist.removeLeadingSegments(1)
                playlist.removeSegments { $0.index % 2 == 0 }
                _ = playlist.serialized()
            }
        }
    }

    @Test func hugeNumbersDoNotTrap() throws {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:1e300\n#EXT-X-MEDIA-SEQUENCE:999999999999999999\n#EXT-X-SKIP:SKIPPED-SEGMENTS=999999999999999999\n#EXT-X-SKIP:SKIPPED-SEGMENTS=999999999999999999\n#EXT-X-SKIP:SKIPPED-SEGMENTS=999999999999999999\n#EXT-X-PROGRAM-DATE-TIME:9999-12-31T23:59:59Z\n#EXTINF:1e308,\n#EXT-X-BYTERANGE:999999999999999999@999999999999999999\na.ts\n#EXTINF:1e308,\n#EXT-X-BYTERANGE:999999999999999999\na.ts\n#EXTINF:1,\n#EXT-X-BYTERANGE:999999999999999999\na.ts\n"
        var playlist = try Playlist(string: text)
        #expect(playlist.segments.count == 3)
        #expect(playlist.segments.last?.msn == 3_999_999_999_999_999_998)
        playlist.removeSegments { $0.index == 0 }
        playlist.removeLeadingSegments(1)
        #expect(playlist.segments.count == 1)
    }
}
