@testable import Proxy
import Testing

/// URIs the proxy writes relative to the playlist that carries them.
@Suite struct RelativeReferenceTests {
    @Test func renditionReportsStayRelative() {
        let base = "/s/a/~media.v0/http/h/live/v0/index.m3u8"
        let target = "/s/a/~media/http/h/live/v1/index.m3u8?x=1"
        let relative = PlaylistRewriter.relativeReference(from: base, to: target)
        #expect(relative == "../../../../../~media/http/h/live/v1/index.m3u8?x=1")
        #expect(!relative.hasPrefix("/"))
    }
}
