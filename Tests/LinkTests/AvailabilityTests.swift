import Testing
@testable import Link

@Suite struct AvailabilityTests {
    let lossy = BadStateModel(meanGood: .seconds(2), meanBad: .milliseconds(500))

    @Test func theBadStateTimelineDependsOnTheSeedOnly() {
        var first = LinkAvailability(model: lossy, seed: 7, from: 0)
        var second = LinkAvailability(model: lossy, seed: 7, from: 0)
        var other = LinkAvailability(model: lossy, seed: 8, from: 0)
        // Asked in different steps, the same seed gives the same down time.
        for second in 1...600 { first.advance(to: Nanos(second) * nanosPerSecond) }
        second.advance(to: 600 * nanosPerSecond)
        other.advance(to: 600 * nanosPerSecond)
        #expect(first.downTotal == second.downTotal)
        #expect(first.downTotal != other.downTotal)
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func inTheLongRunTheLinkIsBadForTheShareTheMeansGive(seed: UInt64) {
        var availability = LinkAvailability(model: lossy, seed: seed, from: 0)
        availability.advance(to: 3600 * nanosPerSecond)
        let fraction = Double(availability.downTotal) / Double(3600 * nanosPerSecond)
        // Theory: 0.5 / 2.5 = 20 %; over an hour (about 1,440 cycles) within a few points.
        #expect(lossy.badFraction == 0.2)
        #expect(fraction > 0.16 && fraction < 0.24, "bad for \(fraction)")
    }

    @Test func theLinkDeliversNothingInTheBadState() {
        var simulation = Simulation(Link(capacity: .constant(.mbps(2)), badState: lossy, seed: 3))
        simulation.start(100_000_000, at: .zero)
        simulation.run(until: .seconds(120))
        var availability = LinkAvailability(model: lossy, seed: 3, from: 0)
        let grantedWhileDown = simulation.grants.filter { availability.isDown(at: $0.time.linkNanos) }
        #expect(grantedWhileDown.isEmpty)
        // Delivered about the good share of 120 s at 250,000 B/s, never more than the capacity.
        let delivered = simulation.bytes(from: .zero, to: .seconds(120))
        #expect(delivered < 250_000 * 120 && delivered > 250_000 * 120 / 2, "\(delivered)")
        var down = LinkAvailability(model: lossy, seed: 3, from: 0)
        down.advance(to: 120 * nanosPerSecond)
        let expected = 250_000 * (120 - Double(down.downTotal) / 1e9)
        #expect(abs(Double(delivered) - expected) < 250_000 * 0.05 * 40, "\(delivered) against \(expected)")
    }

    @Test func anOutageStopsDeliveryAndItResumesAfter() {
        let link = Link(capacity: .constant(.mbps(2)), outages: [Outage(start: .seconds(2), duration: .seconds(3))])
        var scheduler = LinkScheduler(link: link)
        guard case .open(let flow, _) = scheduler.open(now: .zero, newConnection: false) else { Issue.record("reset"); return }
        #expect(scheduler.ask(flow, waiting: 100_000, now: .milliseconds(1950)).bytes == 12_500)
        let during = scheduler.ask(flow, waiting: 100_000, now: .seconds(2))
        #expect(during.bytes == 0 && during.askAgainAt == .seconds(5))
        #expect(scheduler.ask(flow, waiting: 100_000, now: .milliseconds(4990)).bytes == 0)
        #expect(scheduler.ask(flow, waiting: 100_000, now: .seconds(5)).bytes == 12_500)
        let history = scheduler.history(now: .seconds(6))
        let quiet = history.filter { $0.start >= .seconds(2) && $0.start < .seconds(5) }
        #expect(quiet.count == 12 && quiet.allSatisfy { $0.deliveredBytes == 0 && $0.downTime == .milliseconds(250) })
    }

    @Test func newRequestsWaitOrAreResetDuringAnOutage() {
        let outage = [Outage(start: .seconds(2), duration: .seconds(3))]
        var waiting = LinkScheduler(link: Link(capacity: .constant(.mbps(2)), latency: LinkLatency(base: .milliseconds(100)), outages: outage))
        guard case .open(_, let headAt) = waiting.open(now: .seconds(3), newConnection: false) else { Issue.record("reset"); return }
        #expect(headAt == .milliseconds(5100))
        var resetting = LinkScheduler(link: Link(capacity: .constant(.mbps(2)), outages: outage, duringOutage: .reset))
        #expect(resetting.open(now: .seconds(3), newConnection: false) == .reset)
        guard case .open(_, let after) = resetting.open(now: .seconds(5), newConnection: false) else { Issue.record("reset"); return }
        #expect(after == .seconds(5))
    }

    @Test func cuttingTheLinkTakesItDownFromNow() {
        var scheduler = LinkScheduler(link: Link(capacity: .constant(.mbps(2))))
        guard case .open(let flow, _) = scheduler.open(now: .zero, newConnection: false) else { Issue.record("reset"); return }
        scheduler.cut(now: .seconds(1), for: .seconds(10))
        #expect(scheduler.ask(flow, waiting: 1000, now: .seconds(1)).askAgainAt == .seconds(11))
        #expect(scheduler.ask(flow, waiting: 1000, now: .seconds(11)).bytes == 1000)
    }

    @Test func latencyIsTheBaseGiveOrTakeTheJitterAndANewConnectionPaysARoundTrip() {
        let link = Link(capacity: .constant(.mbps(2)), latency: LinkLatency(base: .milliseconds(100), jitter: .milliseconds(20)), seed: 42)
        var scheduler = LinkScheduler(link: link)
        var twin = LinkScheduler(link: link)
        var delays: [Duration] = []
        for request in 0..<1000 {
            let now = Duration.milliseconds(request * 10)
            guard case .open(_, let headAt) = scheduler.open(now: now, newConnection: false),
                  case .open(_, let twinHead) = twin.open(now: now, newConnection: false) else { Issue.record("reset"); return }
            #expect(headAt == twinHead)
            delays.append(headAt - now)
        }
        #expect(delays.allSatisfy { $0 >= .milliseconds(80) && $0 <= .milliseconds(120) })
        #expect(delays.min()! < .milliseconds(85) && delays.max()! > .milliseconds(115))
        guard case .open(let flow, let headAt) = scheduler.open(now: .seconds(20), newConnection: true) else { Issue.record("reset"); return }
        #expect(headAt >= .milliseconds(20_180) && headAt <= .milliseconds(20_220))
        #expect(scheduler.account(of: flow)?.headDelay == headAt - .seconds(20))
    }

    @Test func naturalLogIsRight() {
        let known: [(Double, Double)] = [(1, 0), (2.718281828459045, 1), (2, 0.6931471805599453), (10, 2.302585092994046),
                                         (0.001, -6.907755278982137), (1e9, 20.72326583694641), (1e-12, -27.631021115928547)]
        for (x, ln) in known { #expect(abs(naturalLog(x) - ln) < 1e-12, "ln(\(x))") }
    }
}
