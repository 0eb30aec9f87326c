import Foundation
import Testing
@testable import HLS

@Suite struct CorpusRoundTripTests {
    /// Playlists that are deliberately off-spec and so fail a strict parse.
    static let offSpec: Set<String> = [
        "handmade/odd-spacing-comments-invalid-utf8.m3u8",
        "handmade/mixed-line-endings.m3u8",
    ]

    @Test func corpusHasEveryKindOfPlaylist() throws {
        let names = try Corpus.all().map(\.name)
        #expect(names.count >= 25)
        #expect(names.contains("ffmpeg/ffmpeg-aes128.m3u8"))
        #expect(names.contains("rfc8216bis/ll-hls-media.m3u8"))
        #expect(names.contains("handmade/rich-multivariant-crlf-no-final-newline.m3u8"))
    }

    @Test func everyCorpusPlaylistWritesBackByteForByte() throws {
        for file in try Corpus.all() {
            let playlist = try Playlist(bytes: file.bytes, url: URL(string: "https://origin.example.com/a/b.m3u8?token=t1"))
            #expect(playlist.serialized() == file.bytes, "round trip changed \(file.name)")
        }
    }

    @Test func everyOnSpecCorpusPlaylistPassesStrictParsing() throws {
        for file in try Corpus.all() where !Self.offSpec.contains(file.name) {
            #expect(throws: Never.self, "\(file.name)") {
                _ = try Playlist(bytes: file.bytes, url: URL(string: "https://origin.example.com/a/b.m3u8?token=t1"), strict: true)
            }
        }
    }

    @Test func offSpecPlaylistsFailStrictButParseLeniently() throws {
        for name in Self.offSpec {
            let bytes = try Corpus.bytes(name)
            #expect(throws: PlaylistError.self, "\(name)") { _ = try Playlist(bytes: bytes, strict: true) }
            let lenient = try Playlist(bytes: bytes)
            #expect(!lenient.segments.isEmpty)
        }
    }

    @Test func identityRewriteKeepsEveryByte() throws {
        for file in try Corpus.all() {
            var playlist = try Playlist(bytes: file.bytes, url: URL(string: "https://origin.example.com/a/b.m3u8?token=t1"))
            playlist.rewriteURIs { _ in nil }
            #expect(playlist.serialized() == file.bytes, "\(file.name)")
        }
    }

    @Test func rewritingEveryURIChangesOnlyURIs() throws {
        for file in try Corpus.all() {
            let original = try Playlist(bytes: file.bytes, url: URL(string: "https://origin.example.com/a/b.m3u8?token=t1"))
            var rewritten = original
            rewritten.rewriteURIs { "/proxy/\($0.kind.rawValue)/X" }
            let after = try Playlist(bytes: rewritten.serialized())
            #expect(after.uriReferences.count == original.uriReferences.count, "\(file.name)")
            #expect(after.uriReferences.allSatisfy { $0.original == "/proxy/\($0.kind.rawValue)/X" }, "\(file.name)")
            #expect(after.segments.map(\.duration) == original.segments.map(\.duration))
            #expect(after.variants.map(\.bandwidth) == original.variants.map(\.bandwidth))
            #expect(after.segments.map(\.byteRange) == original.segments.map(\.byteRange))
            // Every line that held no URI is untouched, except that implicit byte-range
            // offsets are written out (they depend on the previous segment's URI).
            let uriLines = Set(original.uriReferences.map { $0.line - 1 })
            #expect(after.lineCount == original.lineCount)
            for index in 0..<original.lineCount where !uriLines.contains(index) {
                let before = original.line(index) ?? ""
                if before.hasPrefix("#EXT-X-BYTERANGE:") && !before.contains("@") {
                    #expect(after.line(index)?.hasPrefix(before + "@") == true, "\(file.name) line \(index + 1)")
                } else {
                    #expect(after.line(index) == before, "\(file.name) line \(index + 1)")
                }
            }
        }
    }
}
