import Foundation
import enum HLS.ProgramDateTime
import Testing
@testable import DemoOrigin

/// The live window, driven through `DemoOrigin.respond` with a hand-moved clock.
@Suite struct LiveWindowTests {
    struct LiveSegment {
        var msn: Int
        var uri: String
        var pdt: String
        var discontinuity: Bool
    }

    /// One parsed live media playlist: what a player would track per reload.
    struct LiveSnapshot {
        var mediaSequence: Int
        var discontinuitySequence: Int
        var segments: [LiveSegment]
        var lines: [String]
    }

    static let segmentsPerLoop = 12

    func snapshot(_ origin: DemoOrigin, _ path: String) throws -> LiveSnapshot {
        let response = origin.respond(method: "GET", path: path, headers: [])
        try #require(response.status == 200, "GET \(path)")
        #expect(response.header("content-type") == "application/vnd.apple.mpegurl")
        #expect(response.header("cache-control") == "no-cache")
        let lines = String(decoding: response.body, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines.first == "#EXTM3U")
        func value(_ tag: String) throws -> Int {
            let line = try #require(lines.first { $0.hasPrefix(tag + ":") }, "\(tag) in \(path)")
            return try #require(Int(line.dropFirst(tag.count + 1)))
        }
        let mediaSequence = try value("#EXT-X-MEDIA-SEQUENCE")
        var segments: [LiveSegment] = []
        var pdt = ""
        var discontinuity = false
        for line in lines {
            if line == "#EXT-X-DISCONTINUITY" { discontinuity = true }
            if line.hasPrefix("#EXT-X-PROGRAM-DATE-TIME:") { pdt = String(line.dropFirst("#EXT-X-PROGRAM-DATE-TIME:".count)) }
            if !line.hasPrefix("#") {
                segments.append(LiveSegment(msn: mediaSequence + segments.count, uri: line, pdt: pdt, discontinuity: discontinuity))
                pdt = ""
                discontinuity = false
            }
        }
        return LiveSnapshot(mediaSequence: mediaSequence, discontinuitySequence: try value("#EXT-X-DISCONTINUITY-SEQUENCE"),
                            segments: segments, lines: lines)
    }

    @Test(arguments: ["ts", "fmp4", "aes"])
    func fullWindowAtStartWithLiveHeaders(flavour: String) throws {
        let clock = TestClock()
        let origin = try DemoOrigin(clock: clock.function)
        let ext = flavour == "fmp4" ? "m4s" : "ts"
        let video = try snapshot(origin, "/live/\(flavour)/v1/index.m3u8")
        #expect(video.mediaSequence == 0)
        #expect(video.discontinuitySequence == 0)
        #expect(video.segments.map(\.uri) == (0..<6).map { "seg-\($0).\(ext)" })
        #expect(video.segments.allSatisfy { !$0.discontinuity && !$0.pdt.isEmpty })
        #expect(video.lines.contains("#EXT-X-TARGETDURATION:2"))
        #expect(!video.lines.contains { $0.hasPrefix("#EXT-X-ENDLIST") || $0.hasPrefix("#EXT-X-PLAYLIST-TYPE") })
        // The stream pretends to have started one window (12 s) before the origin.
        #expect(video.segments[0].pdt == ProgramDateTime.format(clock.now.addingTimeInterval(-12)))
        #expect(video.segments[5].pdt == ProgramDateTime.format(clock.now.addingTimeInterval(-2)))
        #expect(video.lines.contains("#EXT-X-MAP:URI=\"init.mp4\"") == (flavour == "fmp4"))
        #expect(video.lines.contains { $0.hasPrefix("#EXT-X-KEY:METHOD=AES-128,URI=\"../key.bin\"") } == (flavour == "aes"))
        for rendition in ["audio/en", "audio/fr", "subs/en"] {
            let other = try snapshot(origin, "/live/\(flavour)/\(rendition)/index.m3u8")
            #expect(other.mediaSequence == video.mediaSequence, "\(rendition) in step with video")
            #expect(other.segments.count == video.segments.count)
        }
    }

    @Test func windowSlidesOneSegmentPerTwoSecondsWithStableURIs() throws {
        let clock = TestClock()
        let origin = try DemoOrigin(clock: clock.function)
        let before = try snapshot(origin, "/live/ts/v0/index.m3u8")
        clock.advance(by: 1.999)
        #expect(try snapshot(origin, "/live/ts/v0/index.m3u8").mediaSequence == 0)
        clock.advance(by: 0.001)
        let after = try snapshot(origin, "/live/ts/v0/index.m3u8")
        #expect(after.mediaSequence == 1)
        #expect(after.segments.last?.uri == "seg-6.ts")
        // Same MSN, same URI and same PDT across reloads.
        for old in before.segments.dropFirst() {
            let new = try #require(after.segments.first { $0.msn == old.msn })
            #expect(new.uri == old.uri)
            #expect(new.pdt == old.pdt)
        }
        clock.advance(by: 60)
        #expect(try snapshot(origin, "/live/ts/v0/index.m3u8").mediaSequence == 31)
    }

    @Test func loopPointsCarryDiscontinuitiesThatSlideIntoTheSequence() throws {
        let clock = TestClock()
        let origin = try DemoOrigin(clock: clock.function)
        let path = "/live/fmp4/audio/fr/index.m3u8"
        var pdtByMSN: [Int: String] = [:]
        var previousLastPDT = ""
        var discontinuitiesSeen: Set<Int> = []
        // Walk more than two loops, one segment at a time.
        for step in 0...30 {
            let live = try snapshot(origin, path)
            let first = live.mediaSequence
            #expect(first == step)
            #expect(live.discontinuitySequence == first / Self.segmentsPerLoop, "step \(step)")
            for segment in live.segments {
                let isLoopStart = segment.msn % Self.segmentsPerLoop == 0 && segment.msn > 0
                #expect(segment.discontinuity == (isLoopStart && segment.msn != first), "MSN \(segment.msn) at step \(step)")
                if segment.discontinuity { discontinuitiesSeen.insert(segment.msn) }
                if let seen = pdtByMSN[segment.msn] { #expect(seen == segment.pdt) }
                pdtByMSN[segment.msn] = segment.pdt
            }
            // ISO 8601 strings of one fixed format sort like the instants they name.
            let pdts = live.segments.map(\.pdt)
            #expect(pdts == pdts.sorted() && Set(pdts).count == pdts.count, "PDT strictly increasing at step \(step)")
            let last = try #require(pdts.last)
            #expect(last > previousLastPDT)
            previousLastPDT = last
            clock.advance(by: 2)
        }
        #expect(discontinuitiesSeen == [12, 24])  // the live edge reached MSN 35
    }

    @Test func liveSegmentsAreTheLoopingVODSegments() throws {
        let clock = TestClock()
        let origin = try DemoOrigin(clock: clock.function)
        clock.advance(by: 2 * 20)  // latest MSN is 25
        for (msn, vodIndex) in [(25, 1), (24, 0), (13, 1), (3, 3)] {
            for (rendition, ext) in [("v2", "ts"), ("audio/en", "ts"), ("subs/en", "vtt")] {
                let response = origin.respond(method: "GET", path: "/live/aes/\(rendition)/seg-\(msn).\(ext)", headers: [])
                #expect(response.status == 200)
                let vodName = String(format: "s%03d.%@", vodIndex, ext)
                #expect(response.body == (try BundledMedia.data("aes/\(rendition)/\(vodName)")))
            }
        }
        #expect(origin.respond(method: "GET", path: "/live/aes/v2/seg-26.ts", headers: []).status == 404)
        #expect(origin.respond(method: "GET", path: "/live/aes/v2/seg-2.m4s", headers: []).status == 404)
        #expect(origin.respond(method: "GET", path: "/live/aes/v2/seg--1.ts", headers: []).status == 404)
        #expect(origin.respond(method: "GET", path: "/live/aes/key.bin", headers: []).body == (try BundledMedia.data("aes/key.bin")))
        #expect(origin.respond(method: "GET", path: "/live/fmp4/v0/init.mp4", headers: []).status == 200)
        #expect(origin.respond(method: "GET", path: "/live/byterange/master.m3u8", headers: []).status == 404)
    }

    @Test func liveMasterIsTheVODMaster() throws {
        let origin = try DemoOrigin()
        for flavour in DemoOrigin.liveFlavours {
            let live = origin.respond(method: "GET", path: "/live/\(flavour)/master.m3u8", headers: [])
            #expect(live.status == 200)
            let vod = String(decoding: origin.respond(method: "GET", path: "/vod/\(flavour)/master.m3u8", headers: []).body,
                             as: UTF8.self)
            let withoutIFrames = vod.split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.hasPrefix("#EXT-X-I-FRAME-STREAM-INF:") }.joined(separator: "\n")
            #expect(String(decoding: live.body, as: UTF8.self) == withoutIFrames)
            #expect(withoutIFrames.contains("#EXT-X-STREAM-INF:"))
        }
        #expect(origin.respond(method: "GET", path: "/live/ts/v0/iframes.m3u8", headers: []).status == 404)
    }

    @Test func liveSubtitlesFollowTheShiftedMediaTime() throws {
        let clock = TestClock()
        let origin = try DemoOrigin(clock: clock.function)
        clock.advance(by: 2 * 20)
        let vod = String(decoding: try BundledMedia.data("fmp4/subs/en/s001.vtt"), as: UTF8.self)
        let live = String(decoding: origin.respond(method: "GET", path: "/live/fmp4/subs/en/seg-13.vtt", headers: []).body,
                          as: UTF8.self)
        #expect(vod.contains("X-TIMESTAMP-MAP=MPEGTS:7200,LOCAL:00:00:00.000\n"))
        #expect(live == vod.replacingOccurrences(of: "MPEGTS:7200,", with: "MPEGTS:\(7200 + 24 * 90_000),"))
        let tsVOD = String(decoding: try BundledMedia.data("ts/subs/en/s001.vtt"), as: UTF8.self)
        let tsLive = String(decoding: origin.respond(method: "GET", path: "/live/ts/subs/en/seg-13.vtt", headers: []).body,
                            as: UTF8.self)
        #expect(tsLive == tsVOD.replacingOccurrences(of: "MPEGTS:133200,", with: "MPEGTS:\(133_200 + 24 * 90_000),"))
        // Encrypted segments cannot be patched: AES loops restart at the VOD timestamps, cues too.
        let aesLive = origin.respond(method: "GET", path: "/live/aes/subs/en/seg-13.vtt", headers: []).body
        #expect(aesLive == (try BundledMedia.data("aes/subs/en/s001.vtt")))
    }
}
