import Foundation
import PlayerReports
import Testing

/// `PlayerReport` as JSON (`hlschaos run --report`): `liveLatency` is optional, absent when the
/// player reported none, so reports written before it existed still decode.
@Suite struct PlayerReportJSONTests {
    @Test func liveLatencyIsLeftOutWhenUnknownAndRoundTripsWhenKnown() throws {
        let plain = PlayerReport(player: "ffmpeg", outcome: .played, seconds: 3)
        let plainJSON = String(decoding: try JSONEncoder().encode(plain), as: UTF8.self)
        #expect(!plainJSON.contains("liveLatency"), "\(plainJSON)")

        var live = plain
        live.liveLatency = .init(median: 1.9, min: 1.6, max: 2.1, last: 2.0, samples: 40, target: 1.218)
        let data = try JSONEncoder().encode(live)
        #expect(try JSONDecoder().decode(PlayerReport.self, from: data) == live)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let latency = try #require(object["liveLatency"] as? [String: Any])
        #expect(Set(latency.keys) == ["median", "min", "max", "last", "samples", "target"])
    }

    @Test func aReportWithoutLiveLatencyDecodes() throws {
        let older = #"{"player":"hlsjs","outcome":"played","errors":[],"stalls":[],"switches":[],"seconds":10,"log":""}"#
        let report = try JSONDecoder().decode(PlayerReport.self, from: Data(older.utf8))
        #expect(report.liveLatency == nil)
        #expect(report.summaryText == "played")
    }
}
