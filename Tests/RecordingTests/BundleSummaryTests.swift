import Foundation
import BundleFormat
import Recorder
import Testing
import TestSupport

/// `BundleSummary` over hand-written bundles, and the values `hlschaos record` parses.
@Suite struct BundleSummaryTests {
    static let master = """
        #EXTM3U
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",URI="audio/en.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=500000,RESOLUTION=640x360,CODECS="avc1.4d401f,mp4a.40.2",AUDIO="aud"
        low/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=900000,RESOLUTION=960x540,AUDIO="aud"
        high/index.m3u8

        """

    static func live(_ first: Int, count: Int = 3, ended: Bool = false) -> String {
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(first)\n"
        for msn in first..<(first + count) { text += "#EXTINF:2,\nseg\(msn).ts\n" }
        return text + (ended ? "#EXT-X-ENDLIST\n" : "")
    }

    /// A small live recording: the master, four loads of `low` (three versions, one 503), one of
    /// `high` (the same bytes as `low`'s first, at another URL), segments 10–14 of `low` with 13
    /// timing out.
    static func liveBundle(in folder: TemporaryFolder) throws -> RecordingBundle {
        let out = folder.url("bundle")
        let base = "http://o.example/live/"
        let writer = try BundleWriter(destination: out, source: .record, entry: base + "master.m3u8")
        func add(_ at: Double, _ path: String, _ status: Int?, body: String? = nil, kind: String, ending: Exchange.Ending = .complete, error: String? = nil) throws {
            let reference = try body.map { try writer.storeBody(Array($0.utf8)) }
            try writer.append(Exchange(at: at, url: base + path, status: status, body: reference, ending: ending, error: error,
                                       timings: .init(total: 0.05), kind: kind))
        }
        try add(0, "master.m3u8", 200, body: master, kind: "master")
        try add(0.1, "low/index.m3u8", 200, body: live(10), kind: "media")
        try add(0.1, "high/index.m3u8", 200, body: live(10), kind: "media")
        for msn in 10...12 { try add(0.2, "low/seg\(msn).ts", 200, body: "segment \(msn)", kind: "segment") }
        try add(2.1, "low/index.m3u8", 200, body: live(11), kind: "media")
        try add(4.1, "low/index.m3u8", 503, body: "busy", kind: "media")
        try add(5.1, "low/index.m3u8", 200, body: live(12), kind: "media")
        try add(2.2, "low/seg13.ts", nil, kind: "segment", ending: .timeout, error: "upstream timed out")
        try add(5.2, "low/seg14.ts", 200, body: "segment 14", kind: "segment")
        try writer.finish()
        return try RecordingBundle.open(out.path)
    }

    @Test func aLiveRecordingIsSummarised() throws {
        try withTemporaryFolder("bundle") { folder in
            let summary = try BundleSummary(Self.liveBundle(in: folder))
            #expect(summary.source == "record" && summary.entry == "http://o.example/live/master.m3u8")
            #expect(summary.exchanges == 11 && summary.kinds == ["master": 1, "media": 5, "segment": 5])
            #expect(summary.variants.map(\.index) == [0, 1])
            #expect(summary.variants[0].bandwidth == 500_000 && summary.variants[0].resolution == "640x360")
            #expect(summary.variants[0].url == "http://o.example/live/low/index.m3u8")
            #expect(summary.variants.map(\.segmentsRecorded) == [4, 0])

            #expect(summary.playlists.map(\.role) == ["master", "variant 0", "variant 1"])
            let low = summary.playlists[1]
            #expect(low.loads == 4 && low.versions == 3 && low.failures == 1)
            #expect(low.firstMSN == 10 && low.lastMSN == 14 && !low.ended && low.targetDuration == 2)
            #expect(low.segmentsListed == 5 && low.segmentsRecorded == 4, "seg13 timed out")
            #expect(abs((low.medianReload ?? 0) - 2.0) < 1e-9)
            let high = summary.playlists[2]
            #expect(high.loads == 1 && high.versions == 1 && high.medianReload == nil)

            #expect(summary.failures.map(\.url) == ["http://o.example/live/low/seg13.ts", "http://o.example/live/low/index.m3u8"])
            #expect(summary.failures[0].ending == "timeout" && summary.failures[0].status == nil && summary.failures[0].at == 2.2)
            #expect(summary.failures[1].status == 503 && summary.failures[1].ending == "complete")
        }
    }

    @Test func theTextAndJSONSayTheSame() throws {
        try withTemporaryFolder("bundle") { folder in
            let summary = try BundleSummary(Self.liveBundle(in: folder))
            let text = summary.text()
            #expect(text.contains("Source    record of http://o.example/live/master.m3u8"), "\(text)")
            #expect(text.contains("Stopped   as planned"))
            #expect(text.contains("11 exchanges (2 failed)"))
            #expect(text.contains("Variants (from the recorded master)"))
            let lowRow = try #require(text.split(separator: "\n").first { $0.hasPrefix("low/index.m3u8") })
            #expect(lowRow.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
                    == ["low/index.m3u8", "variant", "0", "4", "3", "10–14", "4/5", "2.0", "s", "1"], "\(lowRow)")
            #expect(text.contains("+2.20 s  segment  low/seg13.ts    timeout: upstream timed out"), "\(text)")
            #expect(text.contains("+4.10 s  media    low/index.m3u8  HTTP 503"), "\(text)")

            let object = try #require(try JSONSerialization.jsonObject(with: Data(summary.json().utf8)) as? [String: Any])
            #expect(object["exchanges"] as? Int == 11)
            #expect((object["failures"] as? [[String: Any]])?.count == 2)
            #expect((object["playlists"] as? [[String: Any]])?[1]["versions"] as? Int == 3)
            #expect((object["started"] as? String)?.hasSuffix("Z") == true)
        }
    }

    @Test func anUnfinishedOrStoppedBundleSaysSo() throws {
        try withTemporaryFolder("bundle") { folder in
            let out = folder.url("bundle")
            let writer = try BundleWriter(destination: out, source: .proxy, entry: nil)
            try writer.append(Exchange(at: 0, url: "http://o/a.ts", status: 200, kind: "segment"))
            // Not finished: as if the recording were killed.
            var summary = try BundleSummary(RecordingBundle.open(out.path))
            #expect(summary.ended == nil && summary.text().contains("not finished"))
            #expect(summary.variants.isEmpty && summary.playlists.isEmpty && summary.text().contains("No failures."))
            try writer.finish(stopReason: "interrupted by SIGINT")
            summary = try BundleSummary(RecordingBundle.open(out.path))
            #expect(summary.stopReason == "interrupted by SIGINT" && summary.text().contains("Stopped   interrupted by SIGINT"))
        }
    }

    @Test func aRunOfTheSameFailureIsOneRowOfTheTable() throws {
        try withTemporaryFolder("bundle") { folder in
            let out = folder.url("bundle")
            let writer = try BundleWriter(destination: out, source: .record, entry: "http://o/live/v.m3u8")
            for at in [20.0, 21.0, 22.0] {
                try writer.append(Exchange(at: at, url: "http://o/live/v.m3u8", status: 404, kind: "media"))
            }
            try writer.append(Exchange(at: 22.5, url: "http://o/live/s9.ts", status: nil, ending: .reset, error: "Connection reset by peer", kind: "segment"))
            try writer.append(Exchange(at: 23.0, url: "http://o/live/v.m3u8", status: 404, kind: "media"))
            try writer.finish()
            let summary = try BundleSummary(RecordingBundle.open(out.path))
            #expect(summary.failures.count == 5, "JSON lists each one")
            let rows = summary.text().split(separator: "\n").drop { !$0.hasPrefix("Failures") }.map(String.init)
            #expect(rows == [
                "Failures (5)",
                "AT                   KIND     URL     WHAT",
                "+20.00 s … +22.00 s  media    v.m3u8  HTTP 404 ×3",
                "+22.50 s             segment  s9.ts   reset: Connection reset by peer",
                "+23.00 s             media    v.m3u8  HTTP 404",
            ], "\(rows)")
        }
    }

    // MARK: - Values

    @Test func variantChoices() throws {
        #expect(try VariantChoice.parse("all") == .all)
        #expect(try VariantChoice.parse("0,2") == .some([.index(0), .index(2)]))
        #expect(try VariantChoice.parse(" top , bottom ") == .some([.top, .bottom]))
        for bad in ["", "0,", "x", "-1", "1.5", "top;0"] {
            #expect { try VariantChoice.parse(bad) } throws: { error in
                let text = (error as? RecordError)?.description ?? ""
                return text.hasPrefix("--variants \(bad):") && text.contains("comma-separated")
            }
        }
    }

    @Test func byteSizes() {
        #expect(ByteSize.parse("2GB") == 2 * 1024 * 1024 * 1024)
        #expect(ByteSize.parse("500MB") == 500 * 1024 * 1024)
        #expect(ByteSize.parse("1.5g") == 1_610_612_736)
        #expect(ByteSize.parse("64KiB") == 65_536)
        #expect(ByteSize.parse("1000") == 1000)
        for bad in ["", "GB", "2XB", "-1MB", "0", "1..5MB"] { #expect(ByteSize.parse(bad) == nil, "\(bad)") }
        #expect(ByteSize.text(512) == "512 B" && ByteSize.text(1_572_864) == "1.5 MB" && ByteSize.text(2 * 1024 * 1024 * 1024) == "2.0 GB")
    }
}
