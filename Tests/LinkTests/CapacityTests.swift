import Testing
@testable import Link

@Suite struct CapacityTests {
    @Test func stepsHoldTheirRateFromTheirTime() {
        let steps = CapacitySchedule.steps([(at: .zero, rate: .mbps(8)), (at: .seconds(30), rate: .kbps(600))])
        #expect(steps.rate(at: .seconds(29)) == .mbps(8))
        #expect(steps.rate(at: .seconds(30)) == .kbps(600))
        #expect(steps.rate(at: .seconds(3600)) == .kbps(600))
        #expect(steps.bytes(from: .seconds(29), to: .seconds(31)) == 1_000_000 + 75_000)
    }

    @Test func squareWaveAlternatesHighAndLow() {
        let square = CapacitySchedule.pattern(CapacityPattern(shape: .square, low: .kbps(600), high: .mbps(4), step: .seconds(10)))
        let samples = [0, 9, 10, 19, 20, 35].map { square.rate(at: .seconds($0)) }
        #expect(samples == [.mbps(4), .mbps(4), .kbps(600), .kbps(600), .mbps(4), .kbps(600)])
    }

    @Test func rampsPassThroughEvenLevelsAndStartAgain() {
        let up = CapacitySchedule.pattern(CapacityPattern(shape: .rampUp, low: .mbps(1), high: .mbps(5), step: .seconds(2)))
        #expect([0, 2, 4, 6, 8, 10, 13].map { up.rate(at: .seconds($0)) }
            == [.mbps(1), .mbps(2), .mbps(3), .mbps(4), .mbps(5), .mbps(1), .mbps(2)])
        let down = CapacitySchedule.pattern(CapacityPattern(shape: .rampDown, low: .mbps(1), high: .mbps(5), step: .seconds(2), levels: 3))
        #expect([0, 2, 4, 6].map { down.rate(at: .seconds($0)) } == [.mbps(5), .mbps(3), .mbps(1), .mbps(5)])
    }

    @Test func pyramidGoesUpAndBackDown() {
        let pyramid = CapacitySchedule.pattern(CapacityPattern(shape: .pyramid, low: .mbps(1), high: .mbps(3), step: .seconds(1), levels: 3))
        // One period: 1, 2, 3, 2 Mbit/s; then again.
        #expect((0..<6).map { pyramid.rate(at: .seconds($0)) } == [.mbps(1), .mbps(2), .mbps(3), .mbps(2), .mbps(1), .mbps(2)])
        #expect(pyramid.bytes(from: .zero, to: .seconds(4)) == 8e6 / 8)
    }

    @Test func aPatternThatDoesNotRepeatHoldsItsLastLevel() {
        let down = CapacitySchedule.pattern(CapacityPattern(shape: .rampDown, low: .mbps(1), high: .mbps(4), step: .seconds(5), levels: 4, repeats: false))
        #expect(down.rate(at: .seconds(19)) == .mbps(1))
        #expect(down.rate(at: .seconds(500)) == .mbps(1))
    }

    @Test func mahimahiRepeatedTimesAreSeveralPacketsAndTheTraceLoops() throws {
        // Two packets at 0 ms, one at 4 ms, one at 10 ms: 4 × 1,500 bytes every 10 ms (600 KB/s).
        let trace = try LinkTrace.parse(Array("0\n0\n4\n10\n".utf8), format: .mahimahi, name: "t.mahi").get()
        guard case .mahimahi(let opportunities) = trace else { Issue.record("not Mahimahi"); return }
        #expect(opportunities.periodMilliseconds == 10 && opportunities.opportunitiesPerPeriod == 4)
        let schedule = CapacitySchedule.trace(trace)
        #expect(schedule.cumulative(0) == 3000)
        #expect(schedule.cumulative(3_999_999) == 3000)
        #expect(schedule.cumulative(4_000_000) == 4500)
        // At 10 ms the period's last packet and the next period's two at 0 ms.
        #expect(schedule.cumulative(10_000_000) == 9000)
        #expect(schedule.bytes(from: .milliseconds(3), to: .milliseconds(13)) == 6000)
        #expect(schedule.bytes(from: .zero, to: .seconds(1)) == 100 * 6000)
        #expect(schedule.rate(at: .seconds(7)) == LinkRate(bitsPerSecond: 4_800_000))
    }

    @Test func aMahimahiTraceDrivesTheScheduler() throws {
        // One packet a millisecond: 12 Mbit/s, 75,000 bytes a 50 ms tick.
        let lines = (1...100).map(String.init).joined(separator: "\n")
        let trace = try LinkTrace.parse(Array(lines.utf8), format: .mahimahi, name: "12mbps").get()
        var simulation = Simulation(Link(capacity: .trace(trace)))
        simulation.start(10_000_000, at: .zero)
        simulation.run(until: .seconds(3))
        #expect(simulation.bytes(from: .seconds(1), to: .seconds(2)) == 1_500_000)
    }

    @Test func twoColumnTraceIsRatesFromEachSecondAndLoops() throws {
        let text = "seconds,kbps\n# a commute\n0,1000\n2, 500\n\n3.5,0\n"
        let trace = try LinkTrace.parse(Array(text.utf8), format: .csv, name: "c.csv").get()
        let schedule = CapacitySchedule.trace(trace)
        // 1 Mbit/s for 2 s, 500 kbit/s for 1.5 s, nothing for 1.5 s (as long as the row before), then again.
        #expect([0, 1.9, 2, 3.4, 3.5, 4.9, 5, 7].map { schedule.rate(at: .milliseconds(Int64($0 * 1000))) }
            == [.mbps(1), .mbps(1), .kbps(500), .kbps(500), .kbps(0), .kbps(0), .mbps(1), .kbps(500)])
        #expect(schedule.bytes(from: .zero, to: .seconds(5)) == 250_000 + 93_750)
        #expect(LinkTrace.Format.guess(fileName: "Commute.CSV") == .csv)
        #expect(LinkTrace.Format.guess(fileName: "Verizon-LTE.down") == .mahimahi)
    }
}
