import Addressing
import Foundation
import HAR
import Testing
import TestSupport

/// A HAR's LL-HLS playlist pins what its preload hints named: a PART hint a part, a TYPE=MAP hint
/// the init section.
@Suite struct HARPreloadHintTests {
    @Test func aMapPreloadHintPinsAnInitSection() {
        let playlist = PlaylistFixtures.lowLatencyWithMapHint
        let base = "https://cdn.test/live/v1/"
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        func entry(_ index: Int, _ file: String, body: String? = nil) -> HAREntry {
            HAREntry(index: index, started: start.addingTimeInterval(Double(index)), url: base + file, status: 200,
                     body: body.map { Array($0.utf8) })
        }
        let entries = [entry(0, "index.m3u8", body: playlist), entry(1, "part11.1.m4s"), entry(2, "init2.mp4")]
        let classifier = HARClassifier(entries: entries, useProxyTags: false)
        let part = classifier.classify(entries[1]).target
        #expect(part?.kind == .part && part?.msn == 11 && part?.part == 1)
        let initSection = classifier.classify(entries[2])
        #expect(initSection.target?.kind == .`init`)
        #expect(initSection.pinning == .playlists)
    }
}
