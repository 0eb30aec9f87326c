import Chaos
import Link
import Logging
import NIOConcurrencyHelpers
import NIOCore
import Synchronization

/// A session's link in the data plane: the `LinkScheduler` its responses share, the link it runs,
/// and the responses waiting for their turn.
///
/// A session without a link pays one atomic load per request (`isEngaged`) and one per write
/// (`isShaping`). The link wanted by the session's layers is adopted at its requests (`want`); the
/// control API sets and cuts it directly. Every change wakes the responses that wait, so it takes
/// effect on bodies in flight at once, not at their next turn.
public final class SessionLink: Sendable {
    /// A response on the link: its flow in the scheduler that was running when it opened.
    struct Flow: Sendable, Equatable {
        let id: LinkFlowID
        let generation: Int
    }

    public enum Status: Sendable, Equatable {
        case none
        /// The spec is relative to the ladder and no master playlist has been fetched yet.
        case waitingForLadder
        case running
    }

    private struct State {
        var choice: LinkChoice?
        var status: Status = .none
        var scheduler: LinkScheduler?
        /// A new scheduler starts a new generation: flows of an older one are no longer shaped.
        var generation = 0
        /// Why the wanted spec does not run (a ladder-relative rate the ladder cannot give).
        var problem: String?
        var setAt: Duration = .zero
        var waiters: [LinkFlowID: Waiter] = [:]
    }

    private struct Waiter {
        let token: Int
        let continuation: CheckedContinuation<Void, Error>
        var timer: Scheduled<Void>?
    }

    private let clock: any ChaosClock
    private let seed: UInt64
    private let engaged = Atomic<Bool>(false)
    private let shaping = Atomic<Bool>(false)
    private let nextToken = Atomic<Int>(0)
    private let state = NIOLockedValueBox(State())

    init(clock: any ChaosClock, seed: UInt64) {
        self.clock = clock
        self.seed = seed
    }

    /// The session has a link, running or waiting for its ladder.
    var isEngaged: Bool { engaged.load(ordering: .relaxed) }
    /// Responses must ask the scheduler before they send.
    var isShaping: Bool { shaping.load(ordering: .relaxed) }

    var now: Duration { clock.now() }

    // MARK: - Choosing the link

    /// Runs `choice` unless it runs already (nil: no link). `ladder` gives the variants' BANDWIDTH
    /// in the master's order, nil before a master was fetched. Returns a problem to log when the
    /// spec cannot run on the ladder the session has (the link it replaces keeps running).
    @discardableResult
    func want(_ choice: LinkChoice?, ladder: () -> [Int]?) -> String? {
        if choice == nil, !isEngaged { return nil }
        let now = clock.now()
        let (problem, woken) = state.withLockedValue { state -> (String?, [Waiter]) in
            if state.choice == choice, state.status != .waitingForLadder { return (nil, []) }
            defer { publish(state) }
            return Self.adopt(choice, ladder: ladder(), now: now, seed: seed, into: &state)
        }
        Self.resume(woken)
        return problem
    }

    /// Sets the link through the control API: the spec must run now (or wait for the ladder);
    /// a spec the ladder cannot give is refused and the running link kept.
    func set(_ choice: LinkChoice?, ladder: [Int]?) throws(LinkSpecError) {
        let now = clock.now()
        let (error, woken) = state.withLockedValue { state -> (LinkSpecError?, [Waiter]) in
            if let choice, !(choice.spec.needsLadder && ladder == nil) {
                do throws(LinkSpecError) {
                    _ = try choice.spec.resolve(ladder: ladder, defaultSeed: seed)
                } catch {
                    return (error, [])
                }
            }
            defer { publish(state) }
            return (nil, Self.adopt(choice, ladder: ladder, now: now, seed: seed, into: &state).1)
        }
        if let error { throw error }
        Self.resume(woken)
    }

    /// Takes the link down from now for `duration`; false when the session has no running link.
    func cut(for duration: Duration) -> Bool {
        let now = clock.now()
        let woken = state.withLockedValue { state -> [Waiter]? in
            guard state.scheduler != nil else { return nil }
            state.scheduler!.cut(now: now, for: duration)
            return Self.takeAll(&state)
        }
        guard let woken else { return false }
        Self.resume(woken)
        return true
    }

    private static func adopt(_ choice: LinkChoice?, ladder: [Int]?, now: Duration, seed: UInt64,
                              into state: inout State) -> (String?, [Waiter]) {
        state.choice = choice
        state.problem = nil
        guard let choice else {
            state.status = .none
            if state.scheduler != nil { state.generation += 1 }
            state.scheduler = nil
            return (nil, takeAll(&state))
        }
        if choice.spec.needsLadder && ladder == nil {
            state.status = .waitingForLadder
            return (nil, [])
        }
        let link: Link
        do {
            link = try choice.spec.resolve(ladder: ladder, defaultSeed: seed)
        } catch {
            state.problem = error.description
            state.status = state.scheduler == nil ? .none : .running
            return ("the link from \(choice.from) cannot run: \(error.description)", [])
        }
        state.setAt = now
        state.status = .running
        if state.scheduler == nil {
            state.generation += 1
            state.scheduler = LinkScheduler(link: link, startingAt: now)
        } else {
            state.scheduler!.replace(with: link, now: now, restartClock: true)
        }
        return (nil, takeAll(&state))
    }

    /// Under the lock, so that two changes at once cannot leave the flags of the older one.
    private func publish(_ state: State) {
        engaged.store(state.choice != nil, ordering: .relaxed)
        shaping.store(state.scheduler != nil, ordering: .relaxed)
    }

    // MARK: - Responses

    /// A response about to send its head: its flow and when the head may go; `.reset` when the link
    /// is down and resets new requests; nil when there is no link to ask.
    func open(newConnection: Bool) -> (flow: Flow, headAt: Duration)?? {
        let now = clock.now()
        return state.withLockedValue { state -> (flow: Flow, headAt: Duration)?? in
            guard state.scheduler != nil else { return .some(nil) }
            switch state.scheduler!.open(now: now, newConnection: newConnection) {
            case .reset: return .none
            case .open(let id, let headAt): return .some((Flow(id: id, generation: state.generation), headAt))
            }
        }
    }

    /// How many of `waiting` bytes the flow may send now, and when to ask again (nil: all of them).
    func ask(_ flow: Flow, waiting: Int) -> (bytes: Int, askAgainAt: Duration?) {
        let now = clock.now()
        let (grant, woken) = state.withLockedValue { state -> (LinkGrant, [Waiter]) in
            guard state.generation == flow.generation, state.scheduler != nil else {
                return (LinkGrant(bytes: waiting, askAgainAt: nil), [])
            }
            let grant = state.scheduler!.ask(flow.id, waiting: waiting, now: now)
            return (grant, grant.wake.compactMap { state.waiters.removeValue(forKey: $0) })
        }
        Self.resume(woken)
        return (grant.bytes, grant.askAgainAt)
    }

    /// The response is over: what the link did to it.
    func close(_ flow: Flow) -> LinkFlowAccount? {
        let now = clock.now()
        let (account, woken) = state.withLockedValue { state -> (LinkFlowAccount?, [Waiter]) in
            guard state.generation == flow.generation, state.scheduler != nil else { return (nil, []) }
            let (account, wake) = state.scheduler!.close(flow.id, now: now)
            return (account, wake.compactMap { state.waiters.removeValue(forKey: $0) })
        }
        Self.resume(woken)
        return account
    }

    /// Waits until `time` on the session's clock, or less when the link changes or frees capacity
    /// for this flow. Throws when the task is cancelled (the client went away).
    func wait(_ flow: Flow, until time: Duration, on eventLoop: any EventLoop) async throws {
        let delay = time - clock.now()
        guard delay > .zero else { return }
        let token = nextToken.wrappingAdd(1, ordering: .relaxed).oldValue
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                let cancelled = state.withLockedValue { state -> Bool in
                    if Task.isCancelled { return true }
                    state.waiters[flow.id] = Waiter(token: token, continuation: continuation, timer: nil)
                    return false
                }
                if cancelled { return continuation.resume(throwing: CancellationError()) }
                // Stored first, so a timer that fires at once finds it; a wake that came first
                // leaves the timer nothing to do.
                let timer = eventLoop.scheduleTask(in: TimeAmount(delay)) { [self] in
                    let waiter = state.withLockedValue { state -> Waiter? in
                        guard state.waiters[flow.id]?.token == token else { return nil }
                        return state.waiters.removeValue(forKey: flow.id)
                    }
                    waiter?.continuation.resume()
                }
                state.withLockedValue { state in
                    if state.waiters[flow.id]?.token == token { state.waiters[flow.id]!.timer = timer }
                }
            }
        } onCancel: {
            let waiter = state.withLockedValue { state -> Waiter? in
                guard state.waiters[flow.id]?.token == token else { return nil }
                return state.waiters.removeValue(forKey: flow.id)
            }
            waiter?.timer?.cancel()
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    private static func takeAll(_ state: inout State) -> [Waiter] {
        defer { state.waiters = [:] }
        return Array(state.waiters.values)
    }

    private static func resume(_ waiters: [Waiter]) {
        for waiter in waiters {
            waiter.timer?.cancel()
            waiter.continuation.resume()
        }
    }

    // MARK: - Reading

    /// The link as the API shows it: what runs, where it came from, and its recent history.
    public struct Snapshot: Sendable {
        public var status: Status
        public var choice: LinkChoice?
        public var link: Link?
        public var problem: String?
        /// When the running link was set, on the session's clock, and the clock now.
        public var setAt: Duration
        public var now: Duration
        public var flows: Int
        public var buckets: [LinkBucket]
    }

    public func snapshot() -> Snapshot {
        let now = clock.now()
        return state.withLockedValue { state in
            Snapshot(
                status: state.status, choice: state.choice, link: state.scheduler?.link, problem: state.problem,
                setAt: state.setAt, now: now, flows: state.scheduler?.flowCount ?? 0,
                buckets: state.scheduler == nil ? [] : state.scheduler!.history(now: now))
        }
    }
}
