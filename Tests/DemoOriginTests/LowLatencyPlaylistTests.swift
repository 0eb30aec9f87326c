import Foundation
import HLS
import Testing
@testable import DemoOrigin

/// `/ll/` playlists, blocking-reload decisions and delta updates, on an injected clock.
/// At creation the stream has 12 complete segments (MSN 0…11) and no part of segment 12.
@Suite struct LowLatencyPlaylistTests {
    let clock = TestClock()
    let origin: DemoOrigin

    init() throws {
        origin = try DemoOrigin(clock: clock.function)
    }

    var partTarget: Double { origin.lowLatency.settings.partTarget }

    @Test func masterListsEveryVariantAndBothAudioRenditionsWithoutSubtitles() throws {
        let master = try origin.lowLatencyPlaylist("/ll/master.m3u8")
        #expect(master.kind == .multivariant)
        #expect(master.variants.allSatisfy { $0.subtitles == nil })
        #expect(master.variants.map(\.uri) == ["v0/index.m3u8", "v1/index.m3u8", "v2/index.m3u8"])
        #expect(master.renditions.map(\.uri) == ["audio/en/index.m3u8", "audio/fr/index.m3u8"])
        #expect(master.renditions.allSatisfy { $0.type == "AUDIO" })
        for uri in master.variants.map(\.uri) + master.renditions.compactMap(\.uri) {
            #expect(try origin.immediate("/ll/" + uri).status == 200, "\(uri)")
        }
        #expect(DemoOrigin.catalogue.contains { $0.path == "/ll/master.m3u8" })
    }

    @Test(arguments: LowLatencyMedia.mediaPlaylists)
    func mediaPlaylistCarriesTheLowLatencyTags(path: String) throws {
        clock.advance(by: 0.4 * 2)  // two parts of segment 12 published
        let playlist = try origin.lowLatencyPlaylist("/ll/" + path)
        let control = try #require(playlist.serverControl)
        let target = Double(try #require(playlist.targetDuration))
        let partTarget = try #require(playlist.partTarget)
        #expect(control.canBlockReload)
        #expect(try #require(control.partHoldBack) >= 3 * partTarget)
        #expect(try #require(control.canSkipUntil) >= 6 * target)
        #expect(partTarget <= 0.5 && partTarget >= 0.4)
        #expect(!playlist.endList && playlist.playlistType == nil)
        #expect(playlist.mediaSequence == 0 && playlist.segments.count == 12)
        #expect(playlist.segments.allSatisfy { $0.programDateTime != nil })

        // Parts of the last three complete segments, five each, then the two of segment 12.
        let withParts = playlist.segments.filter { !$0.parts.isEmpty }
        #expect(withParts.map(\.msn) == [9, 10, 11])
        for segment in withParts {
            #expect(segment.parts.map(\.uri) == (0..<5).map { "part-\(segment.msn).\($0).m4s" })
            #expect(abs(segment.parts.map(\.duration).reduce(0, +) - segment.duration) < 0.003)
            #expect(segment.parts.allSatisfy { $0.duration <= partTarget })
            // rfc8216bis 4.4.4.9: all but the last part of a segment are at least 85 % of PART-TARGET.
            #expect(segment.parts.dropLast().allSatisfy { $0.duration >= 0.85 * partTarget })
            #expect(segment.parts[0].independent)
            #expect(segment.parts.dropFirst().allSatisfy(\.independent) == path.hasPrefix("audio/"))
        }
        #expect(playlist.trailingParts.map(\.uri) == ["part-12.0.m4s", "part-12.1.m4s"])
        #expect(playlist.preloadHints.map(\.type) == ["PART"])
        #expect(playlist.preloadHints.map(\.uri) == ["part-12.2.m4s"])

        let reports = playlist.renditionReports
        let others = LowLatencyMedia.mediaPlaylists.filter { $0 != path }
        let up = String(repeating: "../", count: path.split(separator: "/").count - 1)
        #expect(reports.map(\.uri).sorted() == others.map { up + $0 }.sorted())
        #expect(reports.allSatisfy { $0.lastMSN == 12 && $0.lastPart == 1 })
    }

    @Test func partsArePublishedOnePartTargetApart() throws {
        let hint = try #require(try origin.lowLatencyPlaylist("/ll/v1/index.m3u8").preloadHints.first?.uri)
        #expect(hint == "part-12.0.m4s")
        let wait = try #require(origin.holdTime("/ll/v1/" + hint), "the hinted part is held until published")
        #expect(abs(wait - 0.4) < 0.001)
        #expect(try origin.immediate("/ll/v1/part-12.1.m4s").status == 404, "a part past the hint is not held")
        clock.advance(by: wait)
        #expect(try origin.immediate("/ll/v1/" + hint).status == 200)
        let playlist = try origin.lowLatencyPlaylist("/ll/v1/index.m3u8")
        #expect(playlist.trailingParts.map(\.uri) == ["part-12.0.m4s"])
        #expect(playlist.preloadHints.first?.uri == "part-12.1.m4s")
        #expect(try origin.immediate("/ll/v1/seg-12.m4s").status == 404, "segment 12 is not complete")
        clock.advance(by: 4 * 0.4)
        #expect(try origin.immediate("/ll/v1/seg-12.m4s").status == 200)
        let complete = try origin.lowLatencyPlaylist("/ll/v1/index.m3u8")
        #expect(complete.segments.last?.msn == 12 && complete.trailingParts.isEmpty)
        #expect(complete.preloadHints.first?.uri == "part-13.0.m4s")
    }

    @Test func blockingReloadIsHeldUntilTheAskedPartExists() throws {
        // Part 2 of segment 12 is published 3 parts after the origin starts.
        let wait = try #require(origin.holdTime("/ll/v0/index.m3u8?_HLS_msn=12&_HLS_part=2"))
        #expect(abs(wait - 3 * 0.4) < 0.001)
        // Without _HLS_part: until segment 12 is complete (its 5th part).
        #expect(abs((origin.holdTime("/ll/v0/index.m3u8?_HLS_msn=12") ?? 0) - 5 * 0.4) < 0.001)
        // A part index past the segment's last is part 0 of the next segment (rfc8216bis 6.2.5.2).
        #expect(abs((origin.holdTime("/ll/v0/index.m3u8?_HLS_msn=12&_HLS_part=5") ?? 0) - 6 * 0.4) < 0.001)
        // Already there: answered at once.
        #expect(origin.holdTime("/ll/v0/index.m3u8?_HLS_msn=11&_HLS_part=4") == nil)
        #expect(origin.holdTime("/ll/v0/index.m3u8?_HLS_msn=3") == nil)

        clock.advance(by: wait)
        let playlist = try origin.lowLatencyPlaylist("/ll/v0/index.m3u8?_HLS_msn=12&_HLS_part=2")
        #expect(LowLatencyMedia.partURIs(playlist).last == "part-12.2.m4s")
    }

    @Test(arguments: [
        ("/ll/v0/index.m3u8?_HLS_part=1", "_HLS_part without _HLS_msn"),
        ("/ll/v0/index.m3u8?_HLS_msn=14", "more than two segments past"),  // last complete is 11
        ("/ll/v0/index.m3u8?_HLS_msn=13&_HLS_part=3", "Advance Part Limit"),  // 9 parts ahead of 11.4
        ("/ll/v0/index.m3u8?_HLS_msn=x", "decimal integer"),
        ("/ll/v0/index.m3u8?_HLS_msn=12&_HLS_part=-1", "decimal integer"),
        ("/ll/v0/index.m3u8?_HLS_skip=NO", "YES or v2"),
    ])
    func badDirectivesAre400(path: String, reason: String) throws {
        let response = try origin.immediate(path)
        #expect(response.status == 400)
        #expect(String(decoding: response.body, as: UTF8.self).contains(reason))
    }

    @Test func limitsOfTheBadRequestRulesAreHeldNot400() throws {
        #expect(origin.lowLatency.advancePartLimit == Int(3 / partTarget))
        // 13 is last + 2; part 2 of 13 is 8 parts ahead: beyond a limit of 7.
        #expect(origin.holdTime("/ll/v0/index.m3u8?_HLS_msn=13") != nil)
        #expect(origin.holdTime("/ll/v0/index.m3u8?_HLS_msn=13&_HLS_part=1") != nil)
        #expect(try origin.immediate("/ll/v0/index.m3u8?_HLS_msn=13&_HLS_part=2").status == 400)
    }

    @Test(arguments: LowLatencyMedia.mediaPlaylists)
    func deltaUpdateMergedWithTheLastFullPlaylistIsTheCurrentFullPlaylist(path: String) throws {
        clock.advance(by: 2 * 7 + 0.4 * 3)  // into the second loop: a discontinuity in the window
        let previous = try origin.lowLatencyPlaylist("/ll/" + path)
        clock.advance(by: 0.4 * 6)
        let full = try origin.lowLatencyPlaylist("/ll/" + path)
        let delta = try origin.lowLatencyPlaylist("/ll/" + path + "?_HLS_skip=YES")
        #expect(try origin.lowLatencyPlaylist("/ll/" + path + "?_HLS_skip=v2").skip == delta.skip)

        let skip = try #require(delta.skip)
        let canSkipUntil = try #require(full.serverControl?.canSkipUntil)
        let end = full.segments.last.map { $0.startTime + $0.duration } ?? 0
        let beforeDiscontinuity = full.segments.dropFirst().firstIndex(where: \.discontinuity) ?? full.segments.count
        let skippable = min(full.segments.prefix { end - ($0.startTime + $0.duration) >= canSkipUntil - 0.000_1 }.count,
                            beforeDiscontinuity)
        #expect(skip.skippedSegments == skippable && skippable > 0)
        // Six 2 s segments end 12 s before the end, but the loop point is the fifth: four are skipped.
        if path == "v0/index.m3u8" { #expect(skip.skippedSegments == 4) }
        #expect(delta.mediaSequence == full.mediaSequence && delta.discontinuitySequence == full.discontinuitySequence)
        #expect(delta.segments.count == full.segments.count - skip.skippedSegments)

        let kept = previous.segments.filter { $0.msn >= delta.mediaSequence && $0.msn < delta.mediaSequence + skip.skippedSegments }
        #expect(kept.count == skip.skippedSegments, "the previous playlist still holds every skipped segment")
        let merged = kept + delta.segments
        func essence(_ segment: Segment) -> String {
            "\(segment.msn) \(segment.uri) \(segment.duration) \(segment.discontinuity) \(segment.programDateTime.map { "\($0.timeIntervalSince1970)" } ?? "-") \(segment.parts.map(\.uri))"
        }
        #expect(merged.map(essence) == full.segments.map(essence))
        #expect(delta.trailingParts.map(\.uri) == full.trailingParts.map(\.uri))
        #expect(delta.preloadHints.map(\.uri) == full.preloadHints.map(\.uri))
        #expect(delta.renditionReports.map(\.uri) == full.renditionReports.map(\.uri))
        #expect(delta.segments.contains { $0.discontinuity } == full.segments.dropFirst(skip.skippedSegments).contains { $0.discontinuity })
    }

    /// At the origin's start segment 11 has just completed and part 0 of segment 12, the first of
    /// the second loop, is hinted: the discontinuity comes before the hint, so the hinted part is
    /// in the same discontinuity as when it is listed 0.4 s later.
    @Test func theHintOfALoopPointsFirstPartFollowsItsDiscontinuity() throws {
        let before = String(decoding: try origin.immediate("/ll/v0/index.m3u8").body, as: UTF8.self)
        #expect(before.contains("seg-11.m4s\n#EXT-X-DISCONTINUITY\n#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"part-12.0.m4s\""), "\(before)")
        clock.advance(by: 0.4)
        let after = String(decoding: try origin.immediate("/ll/v0/index.m3u8").body, as: UTF8.self)
        #expect(after.contains("seg-11.m4s\n#EXT-X-DISCONTINUITY\n#EXT-X-PART:DURATION=0.400,URI=\"part-12.0.m4s\""), "\(after)")
        #expect(after.components(separatedBy: "#EXT-X-DISCONTINUITY\n").count == 2, "one discontinuity")
    }

    /// Numbers segments as a client that counts from the playlist's own tags does (hls.js):
    /// EXT-X-DISCONTINUITY-SEQUENCE, plus one at every EXT-X-DISCONTINUITY it lists.
    func discontinuityNumbers(_ playlist: Playlist) -> [Int: Int] {
        var number = playlist.discontinuitySequence
        var numbers: [Int: Int] = [:]
        for segment in playlist.segments {
            if segment.discontinuity, segment.msn != playlist.mediaSequence { number += 1 }
            numbers[segment.msn] = number
        }
        return numbers
    }

    /// When the segments a delta update could skip hold a discontinuity (the loop point), it
    /// skips only those before it, so every segment it lists has the discontinuity number the
    /// full playlist gives it. Found with hls.js, which reported "discontinuity sequence
    /// mismatch (2!=3)" when the skipped segments hid the loop point.
    @Test(arguments: LowLatencyMedia.mediaPlaylists)
    func deltaUpdateNeverSkipsADiscontinuity(path: String) throws {
        // The second loop starts at MSN 12. Nine segments on, the window is 9...20: the loop
        // point is its fourth segment, among the six a delta update could skip.
        clock.advance(by: 2 * 9 + 0.4 * 2)
        let full = try origin.lowLatencyPlaylist("/ll/" + path)
        let delta = try origin.lowLatencyPlaylist("/ll/" + path + "?_HLS_skip=YES")
        let loopPoint = try #require(full.segments.dropFirst().first { $0.discontinuity }).msn
        let skip = try #require(delta.skip)
        #expect(skip.skippedSegments == loopPoint - full.mediaSequence, "skips up to the loop point, no further")
        #expect(delta.segments.first?.msn == loopPoint && delta.segments.first?.discontinuity == true)
        let fullNumbers = discontinuityNumbers(full)
        for (msn, number) in discontinuityNumbers(delta) {
            #expect(fullNumbers[msn] == number, "segment \(msn)")
        }
    }
}
