import Foundation
import TestSupport
import Testing
@testable import HLS

@Suite struct PropertyTests {
    /// Random edit sequences on every corpus playlist: the result always parses again to the
    /// same views, lines nobody edited keep their bytes, and the views match what was asked.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func randomEditsKeepPlaylistsValid(seed: UInt64) throws {
        var random = SeededGenerator(state: seed)
        let base = URL(string: "https://origin.example.com/a/b.m3u8?token=t")
        for file in try Corpus.all() {
            var playlist = try Playlist(bytes: file.bytes, url: base)
            let startWarnings = Set(playlist.warnings.map(\.kind))
            for _ in 0..<6 {
                let segmentCount = playlist.segments.count
                switch Int.random(in: 0..<9, using: &random) {
                case 0:
                    let target = Int.random(in: 0..<max(segmentCount, 1), using: &random)
                    playlist.addTag("#EXT-X-GAP", toSegmentsWhere: { $0.index == target })
                    if target < segmentCount { #expect(playlist.segments[target].gap, "\(file.name)") }
                case 1:
                    playlist.removeTag(named: "#EXT-X-GAP", fromSegmentsWhere: { _ in true })
                    #expect(playlist.segments.allSatisfy { !$0.gap }, "\(file.name)")
                case 2:
                    let before = playlist.segments
                    let victim = Int.random(in: 0..<max(segmentCount, 1), using: &random)
                    playlist.removeSegments { $0.index == victim }
                    if victim < before.count {
                        var expected = before.map(\.uri)
                        expected.remove(at: victim)
                        #expect(playlist.segments.map(\.uri) == expected, "\(file.name)")
                        // Durations and dates of the others are unchanged.
                        // Dates of the others are unchanged (a pinned date is written to the millisecond).
                        var expectedDates = before.map(\.programDateTime)
                        expectedDates.remove(at: victim)
                        for (date, expected) in zip(playlist.segments.map(\.programDateTime), expectedDates) {
                            #expect((date?.timeIntervalSince1970 ?? 0) - (expected?.timeIntervalSince1970 ?? 0) < 0.001, "\(file.name)")
                            #expect((date == nil) == (expected == nil), "\(file.name)")
                        }
                    }
                case 3:
                    let before = playlist.segments
                    let count = Int.random(in: 1...2, using: &random)
                    playlist.removeLeadingSegments(count)
                    #expect(playlist.segments.map(\.msn) == before.dropFirst(count).map(\.msn), "\(file.name)")
                    #expect(playlist.segments.map(\.discontinuitySequence) == before.dropFirst(count).map(\.discontinuitySequence), "\(file.name)")
                case 4:
                    let count = playlist.variants.count
                    let victim = Int.random(in: 0..<max(count, 1), using: &random)
                    playlist.removeVariants { $0.index == victim }
                    #expect(playlist.variants.count == max(0, count - (victim < count ? 1 : 0)), "\(file.name)")
                case 5:
                    let present = Bool.random(using: &random)
                    playlist.setEndList(present)
                    #expect(playlist.endList == (present && playlist.kind == .media), "\(file.name)")
                case 6 where playlist.kind == .media:
                    let value = Int.random(in: 0...100_000, using: &random)
                    playlist.setHeaderTag("#EXT-X-MEDIA-SEQUENCE", value: String(value))
                    #expect(playlist.mediaSequence == value, "\(file.name)")
                case 6:
                    break
                case 7:
                    let tag = Int.random(in: 0...1_000_000, using: &random)
                    playlist.rewriteURIs { Bool.random(using: &random) ? "r\(tag)/" + $0.original : nil }
                default:
                    let count = playlist.renditions.count
                    let victim = Int.random(in: 0..<max(count, 1), using: &random)
                    playlist.removeRenditions { $0.index == victim }
                }
                let reparsed = try Playlist(bytes: playlist.serialized(), url: base)
                #expect(reparsed.serialized() == playlist.serialized())
                #expect(reparsed.segments == playlist.segments, "\(file.name)")
                #expect(reparsed.variants == playlist.variants, "\(file.name)")
                #expect(reparsed.renditions == playlist.renditions, "\(file.name)")
                #expect(reparsed.uriReferences == playlist.uriReferences, "\(file.name)")
                // Edits add no new kinds of problems.
                #expect(Set(reparsed.warnings.map(\.kind)).subtracting(startWarnings).isEmpty, "\(file.name): \(reparsed.warnings)")
            }
        }
    }

    /// Random byte mutations never crash and always round-trip when they parse.
    @Test func randomMutationsRoundTrip() throws {
        var random = SeededGenerator(state: 42)
        let files = try Corpus.all()
        for _ in 0..<300 {
            var bytes = files[Int.random(in: 0..<files.count, using: &random)].bytes
            for _ in 0..<Int.random(in: 1...8, using: &random) where !bytes.isEmpty {
                let position = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[position] = UInt8.random(in: 0...255, using: &random)
                case 1: bytes.remove(at: position)
                default: bytes.insert(contentsOf: [0x2C, 0x22, 0x0D, 0x0A, 0x3D].shuffled(using: &random).prefix(2), at: position)
                }
            }
            if let playlist = try? Playlist(bytes: bytes) {
                #expect(playlist.serialized() == bytes)
            }
        }
    }
}
