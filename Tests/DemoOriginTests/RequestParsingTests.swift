import Foundation
import enum HLS.ProgramDateTime
import Testing
@testable import DemoOrigin

@Suite struct RequestPathTests {
    @Test func plainPathSplitsIntoComponents() throws {
        #expect(try RequestPath.components(of: "/vod/ts/v0/s000.ts?token=abc").get() == ["vod", "ts", "v0", "s000.ts"])
        #expect(try RequestPath.components(of: "/").get() == [])
        #expect(try RequestPath.components(of: "/vod/ts/v%30/index.m3u8").get() == ["vod", "ts", "v0", "index.m3u8"])
    }

    @Test(arguments: [
        "/vod/../../etc/passwd", "/vod/ts/%2e%2e/%2e%2e/x", "/vod/ts/%2E%2E%2Fx", "/vod/./ts", "/vod//ts",
        "/vod/ts\\..\\x", "/vod/%00", "/vod/%zz", "vod/ts/master.m3u8", "*",
    ])
    func rejectsTraversalAndJunk(target: String) {
        #expect(throws: RequestPath.Invalid.self) { try RequestPath.components(of: target).get() }
    }
}

@Suite struct ProgramDateTimeTests {
    @Test func formatsUTCWithMilliseconds() {
        #expect(ProgramDateTime.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(ProgramDateTime.format(Date(timeIntervalSince1970: 1_800_000_000.25)) == "2027-01-15T08:00:00.250Z")
        #expect(ProgramDateTime.format(Date(timeIntervalSince1970: 951_782_400.999)) == "2000-02-29T00:00:00.999Z")
        #expect(ProgramDateTime.format(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59.000Z")
    }
}

@Suite struct FMP4TimeShiftTests {
    @Test func shiftsOnlyTimesAndSequenceNumber() throws {
        let segment = try BundledMedia.data("fmp4/v0/s002.m4s")
        let timescale = try #require(FMP4TimeShift.timescale(ofInitSegment: try BundledMedia.data("fmp4/v0/init.mp4")))
        let shifted = try #require(FMP4TimeShift.shifted(segment, bySeconds: 24, timescale: timescale, sequenceOffset: 12))
        #expect(shifted.count == segment.count)
        let changed = zip(segment, shifted).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
        // sidx, mfhd and tfdt fields sit in the first few hundred bytes; the media data is untouched.
        #expect(!changed.isEmpty && changed.allSatisfy { $0 < 200 })
    }

    @Test func truncatedOrGarbageInputNeverCrashes() throws {
        let segment = try BundledMedia.data("fmp4/v0/s002.m4s")
        for length in [0, 3, 8, 12, 24, 30, 40, 60, 76, 90, 100, 120] {
            _ = FMP4TimeShift.shifted(segment.prefix(length), bySeconds: 24, timescale: 12_800, sequenceOffset: 1)
            _ = FMP4TimeShift.timescale(ofInitSegment: segment.prefix(length))
        }
        #expect(FMP4TimeShift.shifted(Data(repeating: 0xFF, count: 64), bySeconds: 1, timescale: 1, sequenceOffset: 1) == nil)
        #expect(FMP4TimeShift.timescale(ofInitSegment: Data([0, 0, 0, 8, 0x6D, 0x64, 0x68, 0x64])) == nil)
    }
}
