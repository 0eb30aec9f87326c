import TestSupport

/// A small VOD stream on a TestOrigin: two variants (0: 400 kbit/s, 1: 1.2 Mbit/s), an English and a
/// French audio rendition, session data, AES-128 key, five 100 kB segments each (pattern bytes, so
/// any byte can be checked).
enum HLSFixture {
    static let segmentSize = 100_000
    static let segmentCount = 5
    static let key: [UInt8] = Array(0..<16)

    static let master = """
        #EXTM3U
        #EXT-X-VERSION:4
        #EXT-X-SESSION-DATA:DATA-ID="com.example.title",VALUE="Fixture"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",LANGUAGE="en",NAME="English",DEFAULT=YES,AUTOSELECT=YES,URI="audio/en/index.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",LANGUAGE="fr",NAME="Français",DEFAULT=NO,AUTOSELECT=YES,URI="audio/fr/index.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=400000,RESOLUTION=416x234,CODECS="avc1.4d401f,mp4a.40.2",AUDIO="aud"
        v0/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=1200000,RESOLUTION=960x540,CODECS="avc1.4d401f,mp4a.40.2",AUDIO="aud"
        v1/index.m3u8

        """

    static func media(_ prefix: String, key: Bool = false) -> String {
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        if key { text += "#EXT-X-KEY:METHOD=AES-128,URI=\"/key.bin\"\n" }
        for n in 0..<segmentCount { text += "#EXTINF:2.000,\n\(prefix)seg\(n).ts\n" }
        return text + "#EXT-X-ENDLIST\n"
    }

    static func install(on origin: TestOrigin) {
        let mpegurl = [("Content-Type", "application/vnd.apple.mpegurl")]
        origin.route("/master.m3u8", .bytes(headers: mpegurl, body: Array(master.utf8)))
        origin.route("/v0/index.m3u8", .bytes(headers: mpegurl, body: Array(media("").utf8)))
        origin.route("/v1/index.m3u8", .bytes(headers: mpegurl, body: Array(media("", key: true).utf8)))
        for language in ["en", "fr"] {
            origin.route("/audio/\(language)/index.m3u8", .bytes(headers: mpegurl, body: Array(media("").utf8)))
            for n in 0..<segmentCount {
                origin.route("/audio/\(language)/seg\(n).ts", .generated(size: segmentSize / 4))
            }
        }
        for variant in 0..<2 {
            for n in 0..<segmentCount {
                origin.route("/v\(variant)/seg\(n).ts", .generated(size: segmentSize))
            }
        }
        origin.route("/key.bin", .bytes(headers: [("Content-Type", "application/octet-stream")], body: key))
    }

    /// The proxy URI of segment `msn` of `variant`, as a player gets it from the rewritten playlists.
    static func segmentPath(port: Int, variant: Int, msn: Int, session: String? = nil) -> String {
        let prefix = session.map { "/s/\($0)" } ?? ""
        return "\(prefix)/~seg.v\(variant).n\(msn)/http/127.0.0.1:\(port)/v\(variant)/seg\(msn).ts"
    }
}
