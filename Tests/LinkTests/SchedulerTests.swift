import Testing
@testable import Link

@Suite struct SchedulerTests {
    /// 2 Mbit/s = 250,000 bytes a second, 12,500 a 50 ms tick.
    let link = Link(capacity: .constant(.mbps(2)))
    let tickBytes = 12_500

    @Test(arguments: [1, 2, 5])
    func capacityIsSharedEquallyBetweenWaitingFlows(flows: Int) {
        var simulation = Simulation(link)
        for _ in 0..<flows { simulation.start(100_000_000, at: .zero) }
        simulation.run(until: .seconds(7))
        let ids = simulation.opened
        let window = (from: Duration.seconds(1), to: Duration.seconds(6))
        let share = 250_000 * 5 / flows
        for id in ids {
            let got = simulation.bytes(of: id, from: window.from, to: window.to)
            #expect(abs(got - share) <= tickBytes, "\(id) got \(got) in 5 s, its share is \(share)")
        }
        // The whole never exceeds the capacity over the window (within one tick handed out ahead).
        let total = simulation.bytes(from: window.from, to: window.to)
        #expect(total <= 250_000 * 5 + tickBytes && total >= 250_000 * 5 - tickBytes)
    }

    @Test func aSmallFlowBesideABigOneFinishesInItsSharesTime() throws {
        var simulation = Simulation(link)
        simulation.start(100_000_000, at: .zero)
        // A 20 KB playlist: at half the capacity (125,000 B/s) it needs 160 ms.
        simulation.start(20_000, at: .milliseconds(1013))
        simulation.run(until: .seconds(3))
        let playlist = simulation.opened[1]
        let finished = try #require(simulation.finished[playlist])
        let took = finished - .milliseconds(1013)
        #expect(took >= .milliseconds(110) && took <= .milliseconds(260), "took \(took)")
    }

    @Test func aFlowThatNeedsLessLeavesTheRestToTheOthers() {
        var simulation = Simulation(link)
        simulation.start(100_000_000, at: .zero)
        // 1,000 bytes every tick: far below its share; the big flow must get the rest.
        for tick in 20..<60 { simulation.start(1000, at: .milliseconds(tick * 50 + 7)) }
        simulation.run(until: .seconds(4))
        let big = simulation.opened[0]
        let got = simulation.bytes(of: big, from: .seconds(1), to: .seconds(3))
        #expect(got >= 500_000 - 40_000 - 2 * tickBytes, "the big flow got \(got) of 460,000")
    }

    @Test func stepsChangeTheRateAtTheRightTick() {
        let steps = Link(capacity: .steps([(at: .zero, rate: .mbps(8)), (at: .seconds(30), rate: .kbps(600))]))
        var simulation = Simulation(steps)
        simulation.start(1_000_000_000, at: .zero)
        simulation.run(until: .seconds(31))
        #expect(simulation.bytes(from: .milliseconds(29_950), to: .seconds(30)) == 50_000)
        #expect(simulation.bytes(from: .seconds(30), to: .milliseconds(30_050)) == 3750)
        #expect(simulation.bytes(from: .seconds(30), to: .seconds(31)) == 75_000)
    }

    @Test func aCapacityChangeTakesEffectAtTheNextTick() {
        var scheduler = LinkScheduler(link: link)
        guard case .open(let id, _) = scheduler.open(now: .zero, newConnection: false) else { Issue.record("reset"); return }
        #expect(scheduler.ask(id, waiting: 1_000_000, now: .milliseconds(1000)).bytes == tickBytes)
        scheduler.replace(with: Link(capacity: .constant(.mbps(8))), now: .milliseconds(1010), restartClock: false)
        #expect(scheduler.ask(id, waiting: 1_000_000, now: .milliseconds(1020)).bytes == 0)
        #expect(scheduler.ask(id, waiting: 1_000_000, now: .milliseconds(1050)).bytes == 50_000)
    }

    @Test func capacityNotUsedIsNotBanked() {
        var scheduler = LinkScheduler(link: link)
        guard case .open(let id, _) = scheduler.open(now: .zero, newConnection: false) else { Issue.record("reset"); return }
        #expect(scheduler.ask(id, waiting: 100, now: .zero).bytes == 100)
        // Quiet for three seconds, then a megabyte: one tick's worth now, not three seconds' worth.
        let grant = scheduler.ask(id, waiting: 1_000_000, now: .milliseconds(3010))
        #expect(grant.bytes == tickBytes && grant.askAgainAt == .milliseconds(3050))
        #expect(scheduler.ask(id, waiting: 1_000_000, now: .milliseconds(3020)).bytes == 0)
    }

    @Test func lowRatesComeOutRightDespiteRounding() {
        // 1 kbit/s = 125 bytes a second, 6.25 a tick, between five flows.
        var simulation = Simulation(Link(capacity: .constant(.kbps(1))))
        for _ in 0..<5 { simulation.start(1_000_000, at: .zero) }
        simulation.run(until: .seconds(21))
        let total = simulation.bytes(from: .seconds(1), to: .seconds(21))
        #expect(abs(total - 2500) <= 7, "\(total) of 2,500")
    }

    @Test func accountsSayHowLongAFlowWaitedAndStalled() throws {
        let lossy = Link(capacity: .constant(.mbps(2)), outages: [Outage(start: .seconds(1), duration: .seconds(2))])
        var simulation = Simulation(lossy)
        simulation.start(750_000, at: .zero)
        simulation.run(until: .seconds(10))
        let flow = simulation.opened[0]
        let account = try #require(simulation.accounts[flow])
        #expect(account.bytes == 750_000)
        // 3 s of sending at the capacity plus 2 s down.
        #expect(account.stalled == .seconds(2))
        #expect(account.waitedForCapacity >= .milliseconds(2900) && account.waitedForCapacity <= .seconds(3))
        #expect(try #require(simulation.finished[flow]) >= .milliseconds(4950))
    }

    @Test func stateStaysBoundedAsFlowsComeAndGo() {
        var simulation = Simulation(link, historyBuckets: 40)
        for second in 0..<600 { simulation.start(20_000, at: .seconds(second)) }
        simulation.run(until: .seconds(601))
        #expect(simulation.scheduler.flowCount == 0)
        let history = simulation.scheduler.history(now: .seconds(601))
        #expect(history.count == 41)
        #expect(history.last?.start == .seconds(601))
        for (earlier, later) in zip(history, history.dropFirst()) { #expect(later.start - earlier.start == .milliseconds(250)) }
        // Every bucket offered 62,500 bytes (2 Mbit/s for 250 ms); 20,000 were taken in the first
        // bucket of each second from 591 s to 599 s (the last flow opened at 599 s).
        #expect(history.dropLast().allSatisfy { $0.offeredBytes == 62_500 && $0.capacity == .mbps(2) })
        #expect(history.map(\.deliveredBytes) == (0..<41).map { $0 % 4 == 0 && $0 < 36 ? 20_000 : 0 })
    }

    /// Kept buckets are packed in 32-bit counts: what fits comes back exactly, more than 4.29 GB
    /// in 250 ms (137 Gbit/s) is counted as that, and the start comes back from the grid.
    @Test func keptBucketsComeBackAsTheyWereClosed() {
        var history = LinkHistory(capacity: 4, from: 1_100_000_000)
        history.deliver(1_234_567)
        history.close(offered: 2_000_000.4, downTotalAtEnd: 120_000_000, next: 1_250_000_000)
        history.deliver(Int(UInt32.max) + 10)
        history.close(offered: 6.25e9, downTotalAtEnd: 370_000_000, next: 1_750_000_000)
        let kept = history.closed
        #expect(kept.map(\.start) == [.seconds(1), .milliseconds(1250)])
        #expect(kept.map(\.offeredBytes) == [2_000_000, Int64(UInt32.max)])
        #expect(kept.map(\.deliveredBytes) == [1_234_567, Int64(UInt32.max)])
        #expect(kept.map(\.downTime) == [.milliseconds(120), .milliseconds(250)])
        #expect(history.currentStart == 1_750_000_000)
    }

    @Test func aLongQuietGapKeepsOnlyTheNewestBuckets() {
        var scheduler = LinkScheduler(link: link, historyBuckets: 8)
        let history = scheduler.history(now: .seconds(3600))
        #expect(history.count == 9)
        #expect(history.first?.start == .milliseconds(3_598_000))
    }
}

@Suite struct LateCallerTests {
    /// A caller whose timers fire late (a busy machine) still gets the link's rate: a flow that
    /// waited when a tick ended may use the capacity of the ticks until it asked again, up to four.
    @Test(arguments: [0, 10, 30, 70])
    func aFlowAskingLateKeepsItsRate(lateness milliseconds: Int) {
        var scheduler = LinkScheduler(link: Link(capacity: .constant(.mbps(2))))
        guard case .open(let id, _) = scheduler.open(now: .zero, newConnection: false) else { Issue.record("reset"); return }
        var now = Duration.zero
        var total = 0
        while now < .seconds(10) {
            let grant = scheduler.ask(id, waiting: 100_000_000, now: now)
            total += grant.bytes
            now = (grant.askAgainAt ?? now) + .milliseconds(milliseconds)
        }
        // 250,000 bytes a second for ten seconds, within a tick and a catch-up.
        #expect(abs(total - 2_500_000) <= 12_500 * 5, "late by \(milliseconds) ms: \(total) of 2,500,000")
    }

    @Test func afterALongPauseAFlowCatchesUpFourTicksAtMost() {
        var scheduler = LinkScheduler(link: Link(capacity: .constant(.mbps(2))))
        guard case .open(let id, _) = scheduler.open(now: .zero, newConnection: false) else { Issue.record("reset"); return }
        #expect(scheduler.ask(id, waiting: 100_000_000, now: .zero).bytes == 12_500)
        // Back two seconds later: four ticks made up and the tick under way, not two seconds' worth.
        #expect(scheduler.ask(id, waiting: 100_000_000, now: .milliseconds(2000)).bytes == 12_500 * 5)
    }
}
