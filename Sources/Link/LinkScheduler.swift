/// The shared bottleneck of one session: every response in flight is a flow, and the capacity is
/// shared fairly between the flows that have bytes waiting.
///
/// Time is cut in ticks (`Link.tick`, at most 50 ms). At the first request in a tick the tick's
/// capacity is worked out: what the schedule offers over the tick's up time (bad states and
/// outages carry nothing). A flow may take up to an equal share of it — the tick's capacity less
/// what flows that no longer wait took, divided by the flows that wait — so a playlist beside a
/// segment gets its share at the next tick, not after the segment. A flow that needs less than its
/// share leaves the rest to the others (`LinkGrant.wake` names those it held back). What is not
/// used in a tick is dropped: nothing is banked for later. State is one entry per open flow, a
/// fixed-size history ring and the bad-state stays of the current tick.
///
/// Pure: the caller hands in `now` on the session's clock and keeps its calls in time order (an
/// earlier time is taken as the latest one seen).
public struct LinkScheduler: Sendable {
    public private(set) var link: Link
    private var tick: Nanos
    /// Where the link's clock (schedule, outages) starts on the session's clock.
    private var origin: Nanos
    private var availability: LinkAvailability
    private var jitterRandom: SeededRandom
    private var flows: [LinkFlowID: FlowState] = [:]
    private var nextFlow = 0
    private var history: LinkHistory
    private var now: Nanos

    // The current tick.
    private var tickStart: Nanos = -1
    private var tickEnd: Nanos = -1
    private var tickBudget: Double = 0
    private var tickSpent = 0
    /// The link's down total when the current tick began.
    private var tickDownTotal: Nanos = 0
    /// Granted in this tick to flows that no longer wait.
    private var spentByIdle = 0
    private var backlogged = 0

    /// `start` is where the link's clock starts on the session's clock; `historyBuckets` how many
    /// 250 ms buckets of history are kept (ten minutes by default).
    public init(link: Link, startingAt start: Duration = .zero, historyBuckets: Int = 2400) {
        self.link = link
        tick = link.tick.linkNanos
        origin = start.linkNanos
        now = origin
        availability = LinkAvailability(model: link.badState, seed: link.seed, from: origin)
        jitterRandom = SeededRandom(seed: link.seed, stream: 2)
        history = LinkHistory(capacity: historyBuckets, from: origin)
        for outage in link.outages {
            availability.addOutage(start: origin + outage.start.linkNanos, end: origin + (outage.start + outage.duration).linkNanos)
        }
    }

    /// Flows open now.
    public var flowCount: Int { flows.count }

    /// Ticks of capacity a flow that waited may make up for when its caller asks late.
    static let maximumCatchUp: Nanos = 4

    // MARK: - Changing the link

    /// Runs `link` from now on: its capacity from the next tick, its latency for the next heads,
    /// its bad-state model and outages from now. With `restartClock` its schedule and outages
    /// start at `now`; otherwise they keep the clock of the link they replace.
    public mutating func replace(with link: Link, now time: Duration, restartClock: Bool) {
        advance(to: time.linkNanos)
        if restartClock { origin = now }
        self.link = link
        tick = link.tick.linkNanos
        availability = LinkAvailability(model: link.badState, seed: link.seed, from: now, downTotal: availability.downTotal)
        for outage in link.outages {
            availability.addOutage(start: origin + outage.start.linkNanos, end: origin + (outage.start + outage.duration).linkNanos)
        }
    }

    /// Takes the link down from `now` for `duration` ("cut the link for 10 s").
    public mutating func cut(now time: Duration, for duration: Duration) {
        advance(to: time.linkNanos)
        availability.addOutage(start: now, end: now + duration.linkNanos)
    }

    // MARK: - Flows

    /// A new response: when its head may go, or a reset when the link is down and the spec says so.
    public mutating func open(now time: Duration, newConnection: Bool) -> LinkOpening {
        advance(to: time.linkNanos)
        if link.duringOutage == .reset, availability.inOutage(at: now) { return .reset }
        let latency = link.latency
        var delay = Double(latency.base.linkNanos)
        let jitter = Double(latency.jitter.linkNanos)
        if jitter > 0 { delay += (2 * jitterRandom.unit() - 1) * jitter }
        if newConnection { delay += Double(latency.newConnection.linkNanos) }
        // A request made while the link is down goes when it is up again, then pays its latency.
        let head = availability.nextUp(from: availability.nextUp(from: now) + Nanos(max(0, delay).rounded()))
        let id = LinkFlowID(rawValue: nextFlow)
        nextFlow += 1
        var flow = FlowState()
        flow.account.headDelay = .linkNanos(head - now)
        flows[id] = flow
        return .open(id, headAt: .linkNanos(head))
    }

    /// How many of the `waiting` bytes `id` may send now, and when it may ask again. An unknown
    /// (already closed) flow is not shaped.
    public mutating func ask(_ id: LinkFlowID, waiting: Int, now time: Duration) -> LinkGrant {
        advance(to: time.linkNanos)
        guard var flow = flows[id] else { return LinkGrant(bytes: max(0, waiting), askAgainAt: nil) }
        settleHeld(&flow)
        guard waiting > 0 else {
            let wake = becomeIdle(&flow, id)
            flows[id] = flow
            return LinkGrant(bytes: 0, askAgainAt: nil, wake: wake)
        }
        startTickIfDue()
        becomeBacklogged(&flow)
        if availability.isDown(at: now) {
            hold(&flow)
            flows[id] = flow
            return LinkGrant(bytes: 0, askAgainAt: .linkNanos(max(availability.nextUp(from: now), now + 1)))
        }
        let spent = flow.spentTick == tickStart ? flow.spent : 0
        let share = (tickBudget - Double(spentByIdle)) / Double(backlogged) - Double(spent)
        let remaining = tickBudget - Double(tickSpent)
        let grant = max(0, min(waiting, Int(min(share, remaining).rounded(.down))))
        flow.spent = spent + grant
        flow.spentTick = tickStart
        flow.account.bytes += Int64(grant)
        tickSpent += grant
        history.deliver(grant)
        if grant == waiting {
            let wake = becomeIdle(&flow, id)
            flows[id] = flow
            return LinkGrant(bytes: grant, askAgainAt: nil, wake: wake)
        }
        hold(&flow)
        flow.cappedTick = share < remaining ? tickStart : nil
        flows[id] = flow
        return LinkGrant(bytes: grant, askAgainAt: .linkNanos(tickEnd))
    }

    /// The response is over (sent, failed or abandoned): what the link did to it, and the flows
    /// that may take what it leaves.
    public mutating func close(_ id: LinkFlowID, now time: Duration) -> (account: LinkFlowAccount, wake: [LinkFlowID]) {
        advance(to: time.linkNanos)
        guard var flow = flows[id] else { return (LinkFlowAccount(), []) }
        settleHeld(&flow)
        let wake = becomeIdle(&flow, id)
        flows[id] = nil
        return (flow.account, wake)
    }

    /// What the link has done to a flow still open.
    public func account(of id: LinkFlowID) -> LinkFlowAccount? { flows[id]?.account }

    // MARK: - History

    /// The newest buckets of what the link offered and delivered, oldest first; the last one is
    /// the bucket under way, up to `now`.
    public mutating func history(now time: Duration) -> [LinkBucket] {
        advance(to: time.linkNanos)
        var partial = history.current
        partial.offeredBytes = Int64(offered(from: history.currentStart, to: now).rounded())
        partial.downTime = .linkNanos(availability.downTotal - history.currentDownAtStart)
        return history.closed + [partial]
    }

    // MARK: - Inside

    private mutating func settleHeld(_ flow: inout FlowState) {
        guard let since = flow.heldSince else { return }
        let down = availability.downTotal - flow.heldDownAt
        flow.account.stalled += .linkNanos(down)
        flow.account.waitedForCapacity += .linkNanos(now - since - down)
        flow.heldSince = nil
    }

    private func hold(_ flow: inout FlowState) {
        flow.heldSince = now
        flow.heldDownAt = availability.downTotal
    }

    private mutating func becomeBacklogged(_ flow: inout FlowState) {
        guard !flow.backlogged else { return }
        flow.backlogged = true
        backlogged += 1
        if flow.spentTick == tickStart { spentByIdle -= flow.spent }
    }

    /// The flow no longer waits; the flows its share held back in this tick may take more.
    private mutating func becomeIdle(_ flow: inout FlowState, _ id: LinkFlowID) -> [LinkFlowID] {
        flow.cappedTick = nil
        guard flow.backlogged else { return [] }
        flow.backlogged = false
        backlogged -= 1
        if flow.spentTick == tickStart { spentByIdle += flow.spent }
        guard now < tickEnd, tickBudget - Double(tickSpent) >= 1 else { return [] }
        var wake: [LinkFlowID] = []
        for (other, state) in flows where other != id && state.cappedTick == tickStart {
            wake.append(other)
            flows[other]?.cappedTick = nil
        }
        return wake.sorted()
    }

    private mutating func startTickIfDue() {
        guard now >= tickEnd else { return }
        // Crumbs below a byte per waiting flow are carried to the next tick so that low rates
        // come out right; nothing else is.
        let consecutive = now < tickEnd + tick
        let carry = consecutive && backlogged > 0 ? min(max(0, tickBudget - Double(tickSpent)), Double(backlogged)) : 0
        let previousEnd = tickEnd
        let usedUp = tickBudget - Double(tickSpent) < Double(backlogged) + 1
        tickStart = now - now % tick
        tickEnd = tickStart + tick
        tickBudget = carry
        // Flows that the last tick's capacity left waiting wanted the capacity of the ticks between
        // it and this one, if the link was up all along: they asked late because the caller did (a
        // busy machine wakes its timers late), not because they had nothing to send. Up to
        // `maximumCatchUp` ticks of it are added, so a late caller keeps its rate without a burst
        // after a long pause.
        var from = tickStart
        let upSincePreviousTick = availability.downTotal == tickDownTotal
        tickDownTotal = availability.downTotal
        if backlogged > 0, usedUp, upSincePreviousTick, previousEnd >= 0, previousEnd < tickStart {
            from = max(previousEnd, tickStart - Self.maximumCatchUp * tick)
        }
        for window in availability.upWindows(from: from, to: tickEnd) {
            tickBudget += offered(from: window.start, to: window.end)
        }
        tickSpent = 0
        spentByIdle = 0
    }

    /// What the schedule offers between two times of the session's clock.
    private func offered(from start: Nanos, to end: Nanos) -> Double {
        link.capacity.bytes(max(0, start - origin), max(0, end - origin))
    }

    /// Moves the clock to `time`: closes the history buckets passed and counts the down time.
    private mutating func advance(to time: Nanos) {
        guard time > now else { return }
        now = time
        let bucket = LinkHistory.bucketNanos
        while history.currentEnd <= now {
            let end = history.currentEnd
            availability.advance(to: end)
            let offered = offered(from: history.currentStart, to: end)
            let downAtEnd = availability.downTotal
            // After a long quiet gap only the buckets the ring keeps are worked out.
            let keptFrom = now - now % bucket - Nanos(history.capacity) * bucket
            let next = max(end, keptFrom)
            history.close(offered: offered, downTotalAtEnd: downAtEnd, next: next)
            if next > end {
                availability.advance(to: next)
                history.markDownStart(availability.downTotal)
            }
        }
        availability.advance(to: now)
    }
}
