import Foundation
import Records
import Testing

/// The player timeline and the reaction report's player summary, read off records' CMCD.
@Suite struct PlayerTimelineTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func record(_ id: UInt64, at seconds: Double, _ cmcd: String?, faulted: Bool = false, findings: [String]? = nil) -> RequestRecord {
        RequestRecord(
            id: id, time: start.addingTimeInterval(seconds), session: "tv1", client: "", method: "GET", path: "/\(id).ts",
            kind: .segment, actions: faulted ? [.init(.status(503), rule: "t/low")] : [], status: faulted ? 503 : 200,
            cmcd: cmcd.map { .init(text: $0, carriages: ["query"], findings: findings) })
    }

    static let session = [
        record(1, at: 0, #"bl=0,ot=v,sid="a",su"#),
        record(2, at: 1, #"bl=0,ot=v,sid="a",su"#),
        record(3, at: 2, #"bl=4000,mtp=5000,ot=v,sid="a""#),
        record(4, at: 6, #"bl=800,ot=v,sid="a""#, faulted: true),
        record(5, at: 7, nil),
        record(6, at: 9, #"bl=2000,bs,ot=v,sid="b""#, findings: ["sid changed"]),
        record(7, at: 10, #"bl=(1500;v 9000;a),ot=v,sta=r,v=2"#),
        record(8, at: 13, #"bl=(3000;v),ot=v,sta=p,v=2,bsd=(2500;v)"#),
    ]

    static func words(_ stall: PlayerTimeline.Stall) -> String {
        "\(stall.record) at \(stall.time)" + (stall.duration.map { " for \($0)" } ?? "") + " (\(stall.source))"
    }

    static func words(_ startup: PlayerTimeline.Startup?) -> String { startup.map { "\($0.seconds) (\($0.source))" } ?? "none" }

    @Test func buffersStallsStartupAndSessionIDs() {
        let timeline = PlayerTimeline.build(Self.session.reversed())
        #expect(timeline.requests == 8 && timeline.requestsWithCMCD == 7 && timeline.requestsWithFindings == 1)
        #expect(timeline.points.map(\.record) == [1, 2, 3, 4, 6, 7, 8])
        #expect(timeline.points.map(\.bufferLength) == [0, 0, 4000, 800, 2000, 1500, 3000])
        #expect(timeline.points[5].buffers == ["v": 1500, "a": 9000])
        #expect(timeline.points[2].measuredThroughput == 5000)
        #expect(timeline.points[5].state == "rebuffering")
        #expect(timeline.sessionIDs == ["a", "b"])
        #expect(timeline.lowestBuffer?.record == 1 && timeline.lowestBuffer?.bufferLength == 0)
        #expect(timeline.stalls.map(Self.words) == ["6 at 9.0 (bs)", "7 at 10.0 for 3.0 (sta)", "8 at 13.0 for 2.5 (bsd)"])
        #expect(Self.words(timeline.startup) == "13.0 (sta)", "sta=p wins over the end of the su requests")
    }

    @Test func startupFromTheEndOfTheStartupRequestsOrFromMsd() {
        let v1 = PlayerTimeline.build(Array(Self.session.prefix(4)))
        #expect(Self.words(v1.startup) == "2.0 (su)")
        let withDelay = PlayerTimeline.build([Self.record(1, at: 0, "su"), Self.record(2, at: 3, "msd=1250,v=2")])
        #expect(Self.words(withDelay.startup) == "1.25 (msd)")
        #expect(PlayerTimeline.build([Self.record(1, at: 0, nil)]).startup == nil)
    }

    @Test func theReportGivesTheBufferAtEachFault() {
        let report = ReactionReport.analyze(Self.session, now: Self.start.addingTimeInterval(20))
        let player = report.player
        #expect(player != nil)
        #expect(player?.faults.map { "\($0.record) at \($0.time): \($0.bufferLength ?? -1)" } == ["4 at 6.0: 800"])
        #expect(player?.stalls.map(Self.words) == ["7 at 10.0 for 3.0 (sta)"], "one per stall: the sta span, not also bs and bsd")
        #expect(report.verdict.contains("The player reported 0.8 s of buffer at the first fault; 0.0 s at its lowest; it reported 1 stall (CMCD, sta); it started in 13.0 s."),
                "\(report.verdict)")
        #expect(ReactionReport.analyze([Self.record(1, at: 0, nil)], now: Self.start).player == nil)
    }

    @Test func aFaultBeforeItsOwnCMCDTakesTheLatestBufferBeforeIt() {
        let records = [Self.record(1, at: 0, "bl=5000"), Self.record(2, at: 1, nil, faulted: true)]
        #expect(ReactionReport.analyze(records, now: Self.start).player?.faults.first?.bufferLength == 5000)
    }
}
