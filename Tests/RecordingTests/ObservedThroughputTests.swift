import BundleFormat
import Testing

/// The throughput a recording's exchanges show, as a `seconds,kbps` trace.
@Suite struct ObservedThroughputTests {
    static func exchange(at: Double, bytes: Int, firstByte: Double, total: Double) -> Exchange {
        Exchange(at: at, url: "http://o/s.ts", status: 200, body: .init(sha256: "x", size: bytes),
                 timings: .init(firstByte: firstByte, total: total))
    }

    @Test func aBodyArrivingEvenlyGivesItsRateAndIdleSecondsKeepTheLastOne() throws {
        // 250,000 bytes over 1 s from 0.5 s: 2,000 kbit/s in seconds 0 and 1; then 100,000 bytes in
        // second 4 over half a second: 1,600 kbit/s. Seconds 2 and 3 fetched nothing.
        let text = try #require(ObservedThroughput.csv([
            Self.exchange(at: 0.4, bytes: 250_000, firstByte: 0.1, total: 1.1),
            Self.exchange(at: 4.0, bytes: 100_000, firstByte: 0, total: 0.5),
        ]))
        #expect(text == "seconds,kbps\n0,2000\n4,1600\n")
    }

    @Test func bodiesArrivingTogetherAddUp() throws {
        // Two bodies of 1 Mbit/s each over the same second: 2 Mbit/s.
        let text = try #require(ObservedThroughput.csv([
            Self.exchange(at: 0, bytes: 125_000, firstByte: 0, total: 1),
            Self.exchange(at: 0, bytes: 125_000, firstByte: 0, total: 1),
        ]))
        #expect(text == "seconds,kbps\n0,2000\n")
    }

    @Test func fromAndSpeedMoveAndScaleTheTrace() throws {
        let exchanges = [Self.exchange(at: 10, bytes: 250_000, firstByte: 0, total: 2)]  // 1 Mbit/s from 10 s to 12 s
        #expect(ObservedThroughput.csv(exchanges, from: 10) == "seconds,kbps\n0,1000\n")
        #expect(ObservedThroughput.csv(exchanges, from: 10, speed: 2) == "seconds,kbps\n0,2000\n")
        #expect(ObservedThroughput.csv(exchanges, from: 11) == "seconds,kbps\n0,1000\n")
    }

    @Test func withoutBodyTimingsThereIsNoTrace() {
        #expect(ObservedThroughput.csv([Exchange(at: 0, url: "http://o/a", status: 503)]) == nil)
        #expect(ObservedThroughput.csv([Exchange]()) == nil)
    }
}
