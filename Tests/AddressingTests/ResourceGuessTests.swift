import Addressing
import Testing

/// What a path, a content type and a body say a resource is: the one answer the proxy, the replay
/// origin, bundle summaries and HAR import share.
@Suite struct ResourceGuessTests {
    @Test func playlistContentTypesAreRecognisedInAnyCase() {
        #expect(ResourceGuess.isPlaylistContentType("Application/VND.Apple.MPEGURL; charset=UTF-8"))
        #expect(ResourceGuess.isPlaylistContentType("audio/x-mpegurl"))
        #expect(!ResourceGuess.isPlaylistContentType("video/mp2t"))
        #expect(!ResourceGuess.isPlaylistContentType("mpegur"))
        #expect(!ResourceGuess.isPlaylistContentType(nil))
    }

    @Test func namesSayPlaylistMediaFileOrKey() {
        #expect(ResourceGuess.byName(path: "/a/master.M3U8") == .playlist)
        #expect(ResourceGuess.byName(path: "/a/list.m3u") == .playlist)
        #expect(ResourceGuess.byName(path: "/a/b", contentType: "application/vnd.apple.mpegurl") == .playlist)
        #expect(ResourceGuess.byName(path: "/a/seg42.ts") == .mediaFile)
        #expect(ResourceGuess.byName(path: "/a/part.m4s") == .mediaFile)
        #expect(ResourceGuess.byName(path: "/a/b", contentType: "video/mp4") == .mediaFile)
        #expect(ResourceGuess.byName(path: "/a/b", contentType: "text/vtt; charset=utf-8") == .mediaFile)
        // audio/mpegurl is a playlist, not audio.
        #expect(ResourceGuess.byName(path: "/a/b", contentType: "audio/mpegurl") == .playlist)
        #expect(ResourceGuess.byName(path: "/keys/k1.key") == .key)
        #expect(ResourceGuess.byName(path: "/api/licence", contentType: "application/json") == .unknown)
        #expect(ResourceGuess.byName(path: "/dir.with.dots/name") == .unknown)
    }

    @Test func extensionsAreTheLastSegmentsLowercased() {
        #expect(ResourceGuess.pathExtension(of: "/a/B.TS") == "ts")
        #expect(ResourceGuess.pathExtension(of: "/a.b/c") == nil)
        #expect(ResourceGuess.pathExtension(of: "/a/.hidden") == nil)
        #expect(ResourceGuess.pathExtension(of: "/a/name.") == nil)
        #expect(ResourceGuess.pathExtension(of: "") == nil)
    }

    @Test func bodiesSayMasterOrMedia() {
        let master = Array("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n".utf8)
        let iFramesOnly = Array("#EXTM3U\n#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=1,URI=\"i.m3u8\"\n".utf8)
        let media = Array("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\ns.ts\n".utf8)
        // A URI line that looks like a tag name is not a tag: only line starts count.
        let mediaNamingStreamInf = Array("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\nx#EXT-X-STREAM-INF:.ts\n".utf8)
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        #expect(ResourceGuess.playlistKind(of: master) == .master)
        #expect(ResourceGuess.playlistKind(of: bom + master) == .master)
        #expect(ResourceGuess.playlistKind(of: iFramesOnly) == .master)
        #expect(ResourceGuess.playlistKind(of: media) == .media)
        #expect(ResourceGuess.playlistKind(of: mediaNamingStreamInf) == .media)
        #expect(ResourceGuess.playlistKind(of: Array("#EXTM3U\n".utf8)) == .media)
        #expect(ResourceGuess.playlistKind(of: Array("<html>".utf8)) == nil)
        #expect(ResourceGuess.playlistKind(of: []) == nil)
        #expect(ResourceGuess.isPlaylist(body: bom + media))
        #expect(!ResourceGuess.isPlaylist(body: Array(" #EXTM3U".utf8)))
        #expect(ResourceTag(entryPlaylist: master) == ResourceTag(kind: .master))
        #expect(ResourceTag(entryPlaylist: Array("{}".utf8)) == nil)
    }

    @Test func recordedKindNamesMapToRuleKinds() {
        #expect(ResourceKind(rawValue: "part") == .part)
        #expect(ResourceKind(rawValue: "sessionData") == .sessionData)
        #expect(ResourceKind(rawValue: "seg") == nil)
        #expect(ResourceTag(kind: .part).resourceKind == .part)
        #expect(ResourceTag(kind: .asset).resourceKind == .segment)
        #expect(ResourceKind.allCases.filter(\.isMediaData) == [.segment, .part])
        #expect(ResourceTag(kind: .initSection).resourceKind == .`init`)
        #expect(ResourceKind.allCases.filter(\.isPlaylist) == [.master, .media])
    }
}
