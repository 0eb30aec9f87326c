import Foundation
import Testing
@testable import HLS

/// The one-pass rewrite must give exactly what the parse and the streaming rewrite give, for every
/// playlist it takes, and must leave to the parse every playlist it cannot take whole.
@Suite struct OnePassMediaRewriteTests {
    typealias Handed = (facts: URIPlaceFacts, absolute: String?)

    /// The parse and the streaming rewrite with `transform`, and what they hand it.
    static func byParse(_ bytes: [UInt8], url: URL?, _ transform: (URIPlaceFacts, String?) -> String?)
        -> (rewrite: OnePassMediaRewrite, handed: [Handed])?
    {
        guard let playlist = try? Playlist(bytes: bytes, url: url) else { return nil }
        var handed: [Handed] = []
        var starts: [Int]? = []
        let output = playlist.bytesRewritingURIs(rewrittenAt: &starts) { facts, absolute, output in
            write(facts, absolute, &output, &handed, transform)
        }
        let rewrite = OnePassMediaRewrite(
            bytes: output, rewrittenAt: starts ?? [-1], segmentTimes: playlist.segmentTimes, targetDuration: playlist.targetDuration,
            playlistType: playlist.playlistType, endList: playlist.endList)
        return (rewrite, handed)
    }

    static func byOnePass(_ bytes: [UInt8], url: URL?, _ transform: (URIPlaceFacts, String?) -> String?)
        -> (rewrite: OnePassMediaRewrite, handed: [Handed])?
    {
        var handed: [Handed] = []
        guard let rewrite = Playlist.rewritingPlainMediaURIs(bytes, url: url, writing: { facts, absolute, output in
            write(facts, absolute, &output, &handed, transform)
        }) else { return nil }
        return (rewrite, handed)
    }

    private static func write(
        _ facts: URIPlaceFacts, _ absolute: UnsafeBufferPointer<UInt8>?, _ output: inout [UInt8], _ handed: inout [Handed],
        _ transform: (URIPlaceFacts, String?) -> String?
    ) -> Bool {
        let text = absolute.map { String(decoding: $0, as: UTF8.self) }
        handed.append((facts, text))
        guard let new = transform(facts, text) else { return false }
        output.append(contentsOf: new.utf8)
        return true
    }

    static let transforms: [(String, @Sendable (URIPlaceFacts, String?) -> String?)] = [
        ("grow", { "/proxy/~\($0.kind)/\($0.msn ?? -1)/" + ($1 ?? "relative") }),
        ("escape", { facts, _ in "#\"\r\n\(facts.line)" }),
        ("keep some", { facts, absolute in facts.line % 3 == 0 ? nil : absolute.map { $0 + "?v=2" } }),
        ("same text", { _, _ in nil }),
    ]
    static let bases = ["https://origin.example.com/a/b/index.m3u8", "http://h:8080/x/./y/../z.m3u8?q=1", ""]

    /// Checks `bytes` both ways; true when the one pass took it.
    @discardableResult
    static func check(_ bytes: [UInt8], _ label: String) -> Bool {
        var took = false
        for base in bases {
            for (name, transform) in transforms {
                let url = URL(string: base)
                guard let fast = byOnePass(bytes, url: url, transform) else {
                    #expect(!took, "\(label): taken with one base or writer, not with another")
                    continue
                }
                took = true
                guard let slow = byParse(bytes, url: url, transform) else {
                    Issue.record("\(label): the one pass took what the parse refuses")
                    continue
                }
                let context = "\(label), base \(base), \(name)"
                #expect(fast.rewrite.bytes == slow.rewrite.bytes, "\(context): bytes")
                #expect(fast.rewrite.rewrittenAt == slow.rewrite.rewrittenAt, "\(context): rewrittenAt")
                #expect(fast.handed.map(\.facts) == slow.handed.map(\.facts), "\(context): facts")
                #expect(fast.handed.map(\.absolute) == slow.handed.map(\.absolute), "\(context): absolute URIs")
                #expect(fast.rewrite.segmentTimes.map(\.msn) == slow.rewrite.segmentTimes.map(\.msn), "\(context): MSNs")
                #expect(fast.rewrite.segmentTimes.map(\.index) == slow.rewrite.segmentTimes.map(\.index), "\(context): indices")
                #expect(fast.rewrite.segmentTimes.map(\.startTime) == slow.rewrite.segmentTimes.map(\.startTime), "\(context): start times")
                #expect(fast.rewrite.targetDuration == slow.rewrite.targetDuration, "\(context): target duration")
                #expect(fast.rewrite.playlistType == slow.rewrite.playlistType, "\(context): playlist type")
                #expect(fast.rewrite.endList == slow.rewrite.endList, "\(context): ENDLIST")
            }
        }
        return took
    }

    @Test func everyCorpusPlaylistItTakesComesOutAsTheParseWritesIt() throws {
        var taken: [String] = []
        var left: [String] = []
        for (name, bytes) in try Corpus.all() {
            if Self.check(bytes, name) { taken.append(name) } else { left.append(name) }
        }
        #expect(taken.count >= 10, "plain media playlists of the corpus taken: \(taken)")
        #expect(taken.contains("handmade/discontinuities-keys-maps-gap.m3u8"), "\(taken)")
        // What it must leave to the parse: multivariant, byte ranges, Low-Latency, variables.
        for name in left { #expect(Self.byOnePass(try Corpus.bytes(name), url: nil, { _, _ in nil }) == nil) }
        #expect(left.contains { $0.contains("multivariant") }, "\(left)")
    }

    /// Edge cases of the plain grammar, each checked against the parse.
    @Test func theEdgesOfThePlainGrammarComeOutAsTheParseWritesThem() {
        let cases: [(String, String)] = [
            ("CRLF", "#EXTM3U\r\n#EXT-X-TARGETDURATION:4\r\n#EXTINF:4.004,\r\na.ts\r\n#EXTINF:4,\r\nb.ts\r\n"),
            ("no final newline", "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\nseg/a.ts"),
            ("no final newline, CR", "#EXTM3U\n#EXTINF:4,\na.ts\r"),
            ("whitespace around lines", "  #EXTM3U \n#EXT-X-MEDIA-SEQUENCE:7\n\t#EXTINF:2.5, title \n  a.ts \t\n\n#EXTINF:3,\n b.ts\n"),
            ("lone CR inside a line", "#EXTM3U\n#EXTINF:4,\na\rb.ts\n"),
            ("no EXTINF", "#EXTM3U\n#EXT-X-TARGETDURATION:4\na.ts\n#EXTINF:4,\nb.ts\n"),
            ("EXTINF twice", "#EXTM3U\n#EXTINF:4,\n#EXTINF:6,\na.ts\nb.ts\n"),
            ("bad durations", "#EXTM3U\n#EXTINF:-1,\na.ts\n#EXTINF:x,\nb.ts\n#EXTINF\nc.ts\n#EXTINF:\nd.ts\n"),
            ("media sequence after segments", "#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:10\n#EXTINF:4,\na.ts\n#EXT-X-MEDIA-SEQUENCE:20\n#EXTINF:4,\nb.ts\n"),
            ("bad media sequence", "#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:ten\n#EXTINF:4,\na.ts\n"),
            ("huge media sequence", "#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:999999999999999999\n#EXTINF:4,\na.ts\n#EXTINF:4,\nb.ts\n"),
            ("target duration twice", "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-TARGETDURATION:6\n#EXTINF:4,\na.ts\n"),
            ("VOD", "#EXTM3U\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\na.ts\n#EXT-X-ENDLIST\n"),
            ("odd playlist type", "#EXTM3U\n#EXT-X-PLAYLIST-TYPE:LIVE\n#EXTINF:4,\na.ts\n"),
            ("comments and unknown tags", "#EXTM3U\n# a comment\n#EXT-X-CUE-OUT:30\n#EXT-OATCLS-SCTE35:/DA\n#EXTINF:4,\na.ts\n#EXT\n#EX\n"),
            ("absolute, dot segments, queries", "#EXTM3U\n#EXTINF:4,\nhttps://cdn.example/x/../y/a.ts?t=1\n#EXTINF:4,\n../b.ts\n#EXTINF:4,\n/c.ts\n#EXTINF:4,\n//other.example/d.ts\n#EXTINF:4,\n?only=query\n"),
            ("schemes the proxy leaves", "#EXTM3U\n#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"skd://k/1\",KEYFORMAT=\"com.apple.streamingkeydelivery\"\n#EXTINF:4,\ndata:text/plain,x\n"),
            ("keys and maps", "#EXTM3U\n#EXT-X-MAP:URI=init.mp4\n#EXT-X-KEY:METHOD=NONE\n#EXT-X-KEY:METHOD=AES-128,URI=\"k.bin\",IV=0x1\n#EXTINF:4,\na.m4s\n#EXT-X-DISCONTINUITY\n#EXT-X-MAP:URI=\"init2.mp4\",BYTERANGE=\"10@0\"\n#EXTINF:4,\nb.m4s\n#EXT-X-MAP:URI=\"\n"),
            ("a URI starting with #?", "#EXTM3U\n#EXTINF:4,\n%23a.ts\n"),
            ("braces without variables", "#EXTM3U\n#EXTINF:4,\na{$x}.ts\n#EXT-X-MAP:URI=\"{$y}.mp4\"\n#EXTINF:4,\nb.ts\n"),
            ("control byte", "#EXTM3U\n#EXTINF:4,\na\u{01}.ts\n"),
            ("program date time, gap, bitrate", "#EXTM3U\n#EXT-X-PROGRAM-DATE-TIME:2025-01-01T00:00:00Z\n#EXT-X-BITRATE:800\n#EXT-X-GAP\n#EXTINF:4,\na.ts\n#EXT-X-PROGRAM-DATE-TIME:nonsense\n#EXTINF:4,\nb.ts\n"),
            ("EXTM3U only", "#EXTM3U\n"),
            ("EXTM3U twice", "#EXTM3U\n#EXTM3U\n#EXTINF:4,\na.ts\n"),
            // Relative references longer than the room first kept after the base directory, between
            // ones resolved the long way: each must still be joined to the directory whole.
            ("long relative references",
             "#EXTM3U\n#EXTINF:4,\n\(String(repeating: "a/", count: 200))x.ts\n#EXTINF:4,\n../b.ts\n#EXTINF:4,\n"
                + "\(String(repeating: "long", count: 1_000)).ts?q=1\n#EXTINF:4,\nc.ts\n"),
        ]
        for (label, text) in cases {
            #expect(Self.check(Array(text.utf8), label), "\(label): the one pass should take it")
        }
    }

    @Test func whatItLeavesToTheParse() {
        let cases: [(String, String)] = [
            ("not HLS", "hello\n"),
            ("empty", ""),
            ("blank line before EXTM3U", "\n#EXTM3U\n#EXTINF:4,\na.ts\n"),
            ("byte order mark", "\u{FEFF}#EXTM3U\n#EXTINF:4,\na.ts\n"),
            ("byte range", "#EXTM3U\n#EXTINF:4,\n#EXT-X-BYTERANGE:100@0\na.ts\n"),
            ("multivariant", "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n"),
            ("variables", "#EXTM3U\n#EXT-X-DEFINE:NAME=\"x\",VALUE=\"1\"\n#EXTINF:4,\na{$x}.ts\n"),
            ("Low-Latency", "#EXTM3U\n#EXT-X-PART-INF:PART-TARGET=1\n#EXTINF:4,\na.ts\n"),
            ("parts", "#EXTM3U\n#EXTINF:4,\na.ts\n#EXT-X-PART:DURATION=1,URI=\"p.mp4\"\n"),
            ("skip", "#EXTM3U\n#EXT-X-SKIP:SKIPPED-SEGMENTS=3\n#EXTINF:4,\na.ts\n"),
            ("date range", "#EXTM3U\n#EXT-X-DATERANGE:ID=\"a\",START-DATE=\"2025-01-01T00:00:00Z\"\n#EXTINF:4,\na.ts\n"),
            ("non-ASCII URI", "#EXTM3U\n#EXTINF:4,\nsegment-é.ts\n"),
            ("decimal target duration", "#EXTM3U\n#EXT-X-TARGETDURATION:4.0\n#EXTINF:4,\na.ts\n"),
        ]
        for (label, text) in cases {
            let bytes = Array(text.utf8)
            #expect(Self.byOnePass(bytes, url: URL(string: Self.bases[0]), { _, _ in nil }) == nil, "\(label)")
            // What the proxy does then: the parse, which must still take every playlist but the first three.
            if !["not HLS", "empty"].contains(label) { Self.checkParseTakes(bytes, label) }
        }
    }

    private static func checkParseTakes(_ bytes: [UInt8], _ label: String) {
        #expect((try? Playlist(bytes: bytes)) != nil, "\(label): the parse takes it")
    }

    /// A long live window, as the proxy's benchmark serves it.
    @Test func aLongLiveWindowComesOutAsTheParseWritesIt() {
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:4\n#EXT-X-MEDIA-SEQUENCE:183400\n"
        for index in 0..<1200 {
            if index % 300 == 0 { text += "#EXT-X-DISCONTINUITY\n#EXT-X-MAP:URI=\"init_\(index).mp4\"\n" }
            text += "#EXTINF:4.004,\nsegments/1080p/segment_\(183_400 + index).m4s\n"
        }
        #expect(Self.check(Array(text.utf8), "1,200 segments"))
    }
}
