@testable import Link

/// Drives a scheduler on a virtual clock the way the data plane will: every flow has `bytes` to
/// send and an origin that is never the bottleneck; it asks, sends what it is granted, asks again
/// when told, and is woken when told.
struct Simulation {
    var scheduler: LinkScheduler
    private(set) var left: [LinkFlowID: Int] = [:]
    private(set) var grants: [(time: Duration, flow: LinkFlowID, bytes: Int)] = []
    private(set) var finished: [LinkFlowID: Duration] = [:]
    private(set) var accounts: [LinkFlowID: LinkFlowAccount] = [:]
    private var due: [(time: Duration, flow: LinkFlowID)] = []
    private var starts: [(time: Duration, bytes: Int, newConnection: Bool)] = []
    /// The flows opened, in the order they were started.
    private(set) var opened: [LinkFlowID] = []

    init(_ link: Link, historyBuckets: Int = 2400) {
        scheduler = LinkScheduler(link: link, historyBuckets: historyBuckets)
    }

    /// A response of `bytes` that opens at `time` (when the simulation gets there); its first ask
    /// is when its head may go. Flows are numbered in the order they open.
    mutating func start(_ bytes: Int, at time: Duration, newConnection: Bool = false) {
        starts.append((time, bytes, newConnection))
        starts.sort { $0.time < $1.time }
    }

    mutating func run(until end: Duration) {
        while true {
            let nextAsk = due.min(by: { ($0.time, $0.flow) < ($1.time, $1.flow) })
            if let open = starts.first, open.time <= end, open.time <= nextAsk?.time ?? .seconds(Int64.max / 4) {
                starts.removeFirst()
                guard case .open(let id, let headAt) = scheduler.open(now: open.time, newConnection: open.newConnection) else {
                    preconditionFailure("the link reset a request")
                }
                left[id] = open.bytes
                opened.append(id)
                due.append((headAt, id))
                continue
            }
            guard let next = nextAsk, next.time <= end else { return }
            due.removeAll { $0.flow == next.flow }
            let waiting = left[next.flow]!
            let grant = scheduler.ask(next.flow, waiting: waiting, now: next.time)
            precondition(grant.bytes <= waiting)
            if grant.bytes > 0 { grants.append((next.time, next.flow, grant.bytes)) }
            left[next.flow] = waiting - grant.bytes
            var wake = grant.wake
            if left[next.flow] == 0 {
                let closing = scheduler.close(next.flow, now: next.time)
                finished[next.flow] = next.time
                accounts[next.flow] = closing.account
                wake += closing.wake
            } else if let again = grant.askAgainAt {
                precondition(again > next.time, "ask again later than now")
                due.append((again, next.flow))
            }
            for id in wake where left[id, default: 0] > 0 {
                due.removeAll { $0.flow == id }
                due.append((next.time, id))
            }
        }
    }

    /// Bytes granted to `flow` (or to every flow) at times in [from, to).
    func bytes(of flow: LinkFlowID? = nil, from: Duration, to: Duration) -> Int {
        grants.filter { (flow == nil || $0.flow == flow) && $0.time >= from && $0.time < to }.reduce(0) { $0 + $1.bytes }
    }
}

extension LinkRate {
    static func mbps(_ value: Double) -> LinkRate { LinkRate(bitsPerSecond: Int64(value * 1e6)) }
    static func kbps(_ value: Double) -> LinkRate { LinkRate(bitsPerSecond: Int64(value * 1e3)) }
}
