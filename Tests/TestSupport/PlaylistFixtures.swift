/// Playlists that more than one test target reads.
public enum PlaylistFixtures {
    /// An LL-HLS media playlist (relative URIs) whose preload hints name the next part (TYPE=PART)
    /// and the next init section (TYPE=MAP). The facts, the proxy's rewriter, the HAR import and the
    /// recorder each take the MAP hint for an init section.
    public static let lowLatencyWithMapHint = """
        #EXTM3U
        #EXT-X-VERSION:9
        #EXT-X-TARGETDURATION:4
        #EXT-X-PART-INF:PART-TARGET=1.0
        #EXT-X-MEDIA-SEQUENCE:10
        #EXT-X-KEY:METHOD=AES-128,URI="key.bin"
        #EXT-X-MAP:URI="init.mp4"
        #EXTINF:4.0,
        seg10.m4s
        #EXT-X-PART:DURATION=1.0,URI="part11.0.m4s"
        #EXT-X-PRELOAD-HINT:TYPE=PART,URI="part11.1.m4s"
        #EXT-X-PRELOAD-HINT:TYPE=MAP,URI="init2.mp4"
        #EXT-X-RENDITION-REPORT:URI="../v2/index.m3u8",LAST-MSN=10

        """
}
