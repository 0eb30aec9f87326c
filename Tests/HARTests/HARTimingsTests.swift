import Foundation
@testable import HAR
import Records
import Testing

@Suite struct HARTimingsTests {
    func record(
        duration: Double, status: Int? = 200, actions: [RequestRecord.Action] = [], connect: Double? = nil, firstByte: Double? = nil,
        fetched: Bool = true
    ) -> RequestRecord {
        RequestRecord(
            id: 1, time: Date(timeIntervalSince1970: 0), session: "s", client: "", method: "GET", path: "/x.ts",
            upstream: fetched ? .init(url: "http://o/x.ts", status: 200, connect: connect, firstByte: firstByte) : nil,
            actions: actions, status: status, duration: duration)
    }

    @Test func thePhasesAlwaysAddUpToTheDuration() {
        let durations: [Double] = [0, 0.000_000_4, 0.0005, 0.012, 0.3105, 1, 2.0345, 59.999_999, 3600, -1, .nan, .infinity]
        let upstreamTimes: [Double?] = [nil, 0, 0.001, 0.25, 5, -2, .nan]
        for duration in durations {
            for connect in upstreamTimes {
                for firstByte in upstreamTimes {
                    for status in [200, nil] as [Int?] {
                        for actions: [RequestRecord.Action] in [[], [Self.delay(1)], [Self.delay(0.25), .init(.status(503), rule: "o/s")]] {
                            let timings = HARTimings(record: record(
                                duration: duration, status: status, actions: actions, connect: connect, firstByte: firstByte))
                            let expected = HARTimings.micros(duration) ?? 0
                            #expect(timings.total == expected, "\(duration) \(String(describing: connect)) \(String(describing: firstByte))")
                            #expect(timings.send >= 0 && timings.wait >= 0 && timings.receive >= 0)
                            #expect(timings.blocked >= -1 && timings.connect >= -1)
                            #expect(timings.dns == -1 && timings.ssl == -1)
                        }
                    }
                }
            }
        }
    }

    @Test func withoutAResponseEverythingIsWaiting() {
        let timings = HARTimings(record: record(duration: 30, status: nil, connect: 0.01, firstByte: 0.02))
        #expect(timings == HARTimings(connect: 10_000, wait: 29_990_000, receive: 0))
    }

    @Test func anInjectedAnswerAfterADelay() {
        let timings = HARTimings(record: record(duration: 2.001, status: 503, actions: [Self.delay(2), .init(.status(503), rule: "o/s")], fetched: false))
        #expect(timings == HARTimings(blocked: 2_000_000, wait: 1_000, receive: 0))
    }

    @Test func aDelayLongerThanTheRecordIsCut() {
        // The client gave up during the delay.
        let timings = HARTimings(record: record(duration: 0.5, status: nil, actions: [Self.delay(2)], fetched: false))
        #expect(timings == HARTimings(blocked: 500_000, wait: 0, receive: 0))
    }

    @Test func aFirstByteBeforeTheConnectCountsAsNoWait() {
        let timings = HARTimings(record: record(duration: 0.1, connect: 0.05, firstByte: 0.01))
        #expect(timings == HARTimings(connect: 50_000, wait: 0, receive: 50_000))
    }

    static func delay(_ seconds: Double) -> RequestRecord.Action { .init(.delay(seconds: seconds), rule: "slow/all") }

    /// `blocked` is the delay action's value; words (even a delay's, from an older record) are not read.
    @Test func theDelayIsTheDelayActionsSeconds() {
        #expect(HARTimings.delaySeconds(in: [Self.delay(2)]) == 2)
        #expect(HARTimings.delaySeconds(in: [.init(.status(503), rule: "o/s"), Self.delay(0.25)]) == 0.25)
        #expect(HARTimings.delaySeconds(in: [.init(.unknown(words: "delay 2.0s"), rule: nil), .init(.content("gap"), rule: "g/t")]) == nil)
        #expect(HARTimings.delaySeconds(in: []) == nil)
        let timings = HARTimings(record: record(duration: 1.75, status: 200, actions: [Self.delay(1.5)], connect: 0.01, firstByte: 0.05))
        #expect(timings == HARTimings(blocked: 1_500_000, connect: 10_000, wait: 40_000, receive: 200_000))
    }

    @Test func secondsBecomeWholeMicroseconds() {
        #expect(HARTimings.micros(0.0021) == 2_100)
        #expect(HARTimings.micros(-3) == 0)
        #expect(HARTimings.micros(.nan) == nil)
    }
}
