import Foundation
import Testing
@testable import HLS

@Suite struct RewriteURITests {
    @Test func everyURIBearingPlaceIsOfferedWithItsContext() throws {
        let playlist = try Corpus.playlist("handmade/rich-multivariant-crlf-no-final-newline.m3u8")
        let references = playlist.uriReferences
        #expect(references.map(\.kind.rawValue) == [
            "sessionData", "sessionKey", "steering", "rendition", "rendition", "rendition", "rendition",
            "variant", "variant", "variant", "variant", "variant", "iFrameVariant", "iFrameVariant", "iFrameVariant",
        ])
        #expect(references.filter { $0.kind == .variant }.map(\.variantIndex) == [0, 1, 2, 3, 4])
        #expect(references.filter { $0.kind == .iFrameVariant }.map(\.variantIndex) == [0, 1, 2])
        #expect(references.filter { $0.kind == .rendition }.map { $0.rendition?.name } == ["English, stereo", "Français", "English 5.1", "English"])
        #expect(references[0].absoluteString == "https://origin.example.com/path/to/lyrics.json")
    }

    @Test func mediaPlaylistPlacesCarryTheMSNTheyApplyTo() throws {
        let playlist = try Corpus.playlist("handmade/discontinuities-keys-maps-gap.m3u8")
        let summary = playlist.uriReferences.map { "\($0.kind.rawValue):\($0.msn ?? -1)" }
        #expect(summary == ["key:1000", "map:1000", "segment:1000", "segment:1001", "segment:1002", "map:1003",
                            "segment:1003", "segment:1004", "key:1005", "segment:1005", "segment:1006"])
    }

    @Test func onlyTheURITextChanges() throws {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-KEY:METHOD=AES-128,URI=\"k.bin\",IV=0x1\n#EXT-X-MAP:URI=\"i.mp4\",BYTERANGE=\"10@0\"\n#EXTINF:4,t\n  a.ts \n"
        var playlist = try Playlist(string: text, url: URL(string: "https://o.example/p/x.m3u8"))
        playlist.rewriteURIs { "/proxy/" + ($0.absoluteString ?? "?") }
        #expect(playlist.text == "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-KEY:METHOD=AES-128,URI=\"/proxy/https://o.example/p/k.bin\",IV=0x1\n#EXT-X-MAP:URI=\"/proxy/https://o.example/p/i.mp4\",BYTERANGE=\"10@0\"\n#EXTINF:4,t\n  /proxy/https://o.example/p/a.ts \n")
        // The views follow the new text, and a new parse agrees.
        #expect(playlist.segments[0].uri == "/proxy/https://o.example/p/a.ts")
        #expect(playlist.segments[0].key?.uri == "/proxy/https://o.example/p/k.bin")
        #expect(playlist.segments[0].map?.uri == "/proxy/https://o.example/p/i.mp4")
        let reparsed = try Playlist(bytes: playlist.serialized())
        #expect(reparsed.segments == playlist.segments)
    }

    @Test func returningNilKeepsTheOriginalAndQuotesCannotBreakTheLine() throws {
        var playlist = try Corpus.playlist("rfc8216/8.6-master-alternative-audio.m3u8")
        let before = playlist.serialized()
        playlist.rewriteURIs { $0.kind == .rendition && $0.rendition?.language == "de" ? "de\"evil\n.m3u8" : nil }
        let after = playlist.text
        #expect(after.contains("URI=\"de%22evil%0A.m3u8\""))
        #expect(playlist.lineCount == (try Playlist(bytes: before)).lineCount)
        #expect(playlist.renditions[1].uri == "de%22evil%0A.m3u8")
        #expect(playlist.renditions[0].uri == "main/english-audio.m3u8")
    }

    @Test func rewritingCannotChangeTheStructure() throws {
        var playlist = try Corpus.playlist("ffmpeg/ffmpeg-ts-vod.m3u8")
        playlist.rewriteURIs { $0.msn == 0 ? "" : $0.msn == 1 ? "#EXT-X-ENDLIST" : "a\r\nb.ts" }
        #expect(playlist.segments.map(\.uri) == ["ffmpeg-ts-vod0.ts", "%23EXT-X-ENDLIST", "a%0D%0Ab.ts", "a%0D%0Ab.ts"])
        let reparsed = try Playlist(bytes: playlist.serialized(), strict: true)
        #expect(reparsed.segments == playlist.segments)
    }

    @Test func rewritingTwiceAndOtherPlacesOnTheSameLine() throws {
        var playlist = try Corpus.playlist("rfc8216bis/interstitials-daterange.m3u8")
        playlist.rewriteURIs { $0.kind == .dateRangeAsset ? "A" + $0.original : nil }
        playlist.rewriteURIs { $0.kind == .segment ? "S-" + $0.original : nil }
        #expect(playlist.dateRanges.map { $0.attributes["X-ASSET-URI"] ?? $0.attributes["X-ASSET-LIST"] } == [
            "Ahttps://ads.example.com/ad1/master.m3u8", "Ahttps://ads.example.com/list.json?slot=2"])
        #expect(playlist.segments.map(\.uri) == ["S-main0.ts", "S-main1.ts", "S-main2.ts"])
        let reparsed = try Playlist(bytes: playlist.serialized(), strict: true)
        #expect(reparsed.uriReferences.map(\.original) == playlist.uriReferences.map(\.original))
        #expect(reparsed.dateRanges == playlist.dateRanges)
    }

    @Test func llhlsPartsHintsAndReportsAreRewritten() throws {
        var playlist = try Corpus.playlist("rfc8216bis/ll-hls-media.m3u8")
        playlist.rewriteURIs { "x/\($0.kind.rawValue)/\($0.msn ?? -1)/\($0.partIndex ?? -1)" }
        #expect(playlist.trailingParts.map(\.uri) == ["x/part/273/0", "x/part/273/1", "x/part/273/2"])
        #expect(playlist.preloadHints.map(\.uri) == ["x/preloadHint/273/3"], "the part after the three listed")
        #expect(playlist.renditionReports.map(\.uri) == ["x/renditionReport/-1/-1", "x/renditionReport/-1/-1"])
        #expect(playlist.segments[6].parts[11].uri == "x/part/272/11")
        let reparsed = try Playlist(bytes: playlist.serialized())
        #expect(reparsed.segments == playlist.segments)
        #expect(reparsed.trailingParts == playlist.trailingParts)
    }
}

/// `bytesRewritingURIs` (no view updated) must write what `rewriteURIs` and `serialized` write,
/// for every playlist of the corpus and URIs that grow, shrink, need escaping or stay.
@Suite struct BytesRewritingURIsTests {
    @Test func writesWhatTheFullRewriteWrites() throws {
        let transforms: [(String, (URIReference) -> String?)] = [
            ("grow", { "/proxy/~\($0.kind)/\($0.msn ?? -1)/" + ($0.absoluteString ?? $0.original) }),
            ("shrink", { _ in "x" }),
            ("escape", { "#\"\n" + $0.original }),
            ("keep every other", { $0.line % 2 == 0 ? nil : $0.original + "?v=2" }),
        ]
        var checked = 0
        for (name, bytes) in try Corpus.all() {
            guard let playlist = try? Playlist(bytes: bytes, url: URL(string: "https://origin.example.com/a/b/index.m3u8")) else { continue }
            for (label, transform) in transforms {
                var full = playlist
                full.rewriteURIs(transform)
                #expect(playlist.bytesRewritingURIs(transform) == full.serialized(), "\(name), \(label)")
            }
            checked += 1
        }
        #expect(checked > 20, "the corpus was read")
    }

    /// The streaming form (a writer appending bytes) writes what the full rewrite writes with the
    /// same transform, is handed what `uriReferences` says of each place, and says where each new
    /// URI begins (`rewrittenAt`) as the string form does.
    @Test func theStreamingFormWritesWhatTheStringFormWrites() throws {
        let transforms: [(String, (URIPlaceFacts, String?) -> String?)] = [
            ("grow", { "/proxy/~\($0.kind)/\($0.msn ?? -1)/\($0.renditionIndex ?? -1)/" + ($1 ?? "relative") }),
            ("escape", { facts, _ in "#\"\n\(facts.line)" }),
            ("keep some", { facts, absolute in facts.line % 3 == 0 ? nil : absolute.map { $0 + "?v=2" } }),
            ("same text", { _, _ in nil }),
        ]
        let bases = ["https://origin.example.com/a/b/index.m3u8", "http://h:8080/x/./y/../z.m3u8?q=1", ""]
        var checked = 0
        for (name, bytes) in try Corpus.all() {
            for base in bases {
                guard let playlist = try? Playlist(bytes: bytes, url: URL(string: base)) else { continue }
                let references = playlist.uriReferences
                for (label, transform) in transforms {
                    var full = playlist
                    full.rewriteURIs { transform($0.facts, $0.absoluteString) }
                    var handed: [(URIPlaceFacts, String?)] = []
                    var starts: [Int]? = []
                    let streamed = playlist.bytesRewritingURIs(rewrittenAt: &starts) { facts, absolute, output in
                        let text = absolute.map { String(decoding: $0, as: UTF8.self) }
                        handed.append((facts, text))
                        guard let new = transform(facts, text) else { return false }
                        output.append(contentsOf: new.utf8)
                        return true
                    }
                    #expect(streamed == full.serialized(), "\(name), \(base), \(label)")
                    #expect(handed.map(\.0) == references.map(\.facts), "\(name), \(base), \(label)")
                    #expect(handed.map(\.1) == references.map(\.absoluteString), "\(name), \(base), \(label)")
                    var stringStarts: [Int]? = []
                    _ = playlist.bytesRewritingURIs({ transform($0.facts, $0.absoluteString) }, rewrittenAt: &stringStarts)
                    #expect(starts == stringStarts, "\(name), \(base), \(label)")
                }
                checked += 1
            }
        }
        #expect(checked > 60, "the corpus was read")
    }
}
