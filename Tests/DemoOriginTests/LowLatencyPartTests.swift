import Foundation
import Testing
@testable import DemoOrigin
import TestSupport

/// The bytes of `/ll/` parts and segments: each part its own fMP4 fragment, the parts of a
/// segment back to back are the segment, and together they carry exactly the VOD samples.
@Suite struct LowLatencyPartTests {
    let clock = TestClock()
    let origin: DemoOrigin

    init() throws {
        origin = try DemoOrigin(clock: clock.function)
        clock.advance(by: 2 * 20)  // segments up to MSN 31: loops 0, 1 and part of 2
    }

    func parts(_ rendition: String, msn: Int) throws -> [Data] {
        try (0..<5).map { index in
            let response = try origin.immediate("/ll/\(rendition)/part-\(msn).\(index).m4s")
            try #require(response.status == 200, "part \(index) of \(msn): \(response.status)")
            #expect(response.header("content-type") == "video/iso.segment")
            return response.body
        }
    }

    @Test(arguments: LowLatencyMedia.mediaPlaylists.map { String($0.dropLast("/index.m3u8".count)) })
    func partsAreFragmentsWhoseConcatenationIsTheSegment(rendition: String) throws {
        for msn in [3, 27] {  // loop 0, and loop 2 (timestamps moved)
            let parts = try parts(rendition, msn: msn)
            for (index, part) in parts.enumerated() {
                let expected = index == 0 ? ["styp", "moof", "mdat"] : ["moof", "mdat"]
                #expect(LowLatencyMedia.topLevelBoxes(part).map(\.type) == expected, "part \(index) of \(msn)")
            }
            let segment = try origin.immediate("/ll/\(rendition)/seg-\(msn).m4s")
            #expect(segment.status == 200)
            #expect(parts.reduce(Data(), +) == segment.body)
            // The same samples as the VOD segment, in the same order.
            let vod = try BundledMedia.data("fmp4/\(rendition)/s003.m4s")
            #expect(LowLatencyMedia.mdatPayloads(segment.body) == LowLatencyMedia.mdatPayloads(vod))
        }
    }

    @Test func splitterCutsOnTheGridAndSaysWhyItCannot() throws {
        let vod = try BundledMedia.data("fmp4/v0/s000.m4s")
        let parts = try FMP4PartSplitter.split(vod, timescale: 12800, partDuration: 0.4, partCount: 5, sequenceBase: 1)
        #expect(parts.map(\.duration) == [0.4, 0.4, 0.4, 0.4, 0.4])
        #expect(parts.map(\.independent) == [true, false, false, false, false])

        let alreadySplit = try origin.immediate("/ll/v0/seg-0.m4s").body
        do {
            _ = try FMP4PartSplitter.split(alreadySplit, timescale: 12800, partDuration: 0.4, partCount: 5, sequenceBase: 1)
            Issue.record("a segment of several fragments was cut again")
        } catch {
            #expect(error.description.contains("more than one moof"))
        }
        do {
            _ = try FMP4PartSplitter.split(vod, timescale: 12800, partDuration: 1, partCount: 5, sequenceBase: 1)
            Issue.record("2 s cut on a 1 s grid into 5 parts")
        } catch {
            #expect(error.description.contains("part 2 would have no sample"))
        }
    }

    @Test func aSegmentInProgressAndAPartNotYetHintedAre404() throws {
        // Latest complete segment is 31; segment 32 has no part yet, its part 0 is hinted.
        #expect(try origin.immediate("/ll/v0/seg-32.m4s").status == 404)
        #expect(origin.holdTime("/ll/v0/part-32.0.m4s") != nil)
        #expect(try origin.immediate("/ll/v0/part-32.1.m4s").status == 404)
        #expect(try origin.immediate("/ll/v0/part-33.0.m4s").status == 404)
        #expect(try origin.immediate("/ll/v0/part-3.5.m4s").status == 404, "there are five parts per segment")
        #expect(try origin.immediate("/ll/v0/part-99999999999999999999.0.m4s").status == 404)
        #expect(try origin.immediate("/ll/v0/init.mp4").body == (try BundledMedia.data("fmp4/v0/init.mp4")))
        #expect(try origin.immediate("/ll/subs/en/index.m3u8").status == 404, "subtitles are not served LL")
    }

    @Test func ffprobeDecodesTheSegmentMadeOfPartsFrameForFrame() async throws {
        try FFmpegPlaybackTests.requireTools()
        func frameCount(_ media: Data, rendition: String, stream: String) async throws -> Int {
            let segment = [UInt8](try BundledMedia.data("fmp4/\(rendition)/init.mp4") + media)
            let probe = try await withTemporaryFolder("ll") { folder in
                try await ToolRun.run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", stream,
                                                  "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", try folder.file("segment.mp4", segment)])
            }
            #expect(probe.stderr.isEmpty, "\(rendition): \(probe.stderr)")
            return Int(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }
        for (rendition, stream) in [("v2", "v"), ("audio/en", "a")] {
            let vod = try await frameCount(try BundledMedia.data("fmp4/\(rendition)/s000.m4s"), rendition: rendition, stream: stream)
            let ll = try await frameCount(try origin.immediate("/ll/\(rendition)/seg-24.m4s").body, rendition: rendition, stream: stream)
            #expect(vod > 40 && ll == vod, "\(rendition): VOD \(vod) frames, LL \(ll)")
        }
    }
}
