/// The link's capacity over time, on the link's clock (0 = when its schedule starts). Either a rate
/// that is constant between change points (a constant rate, steps, a pattern, a `seconds,kbps`
/// trace) or Mahimahi delivery opportunities. Everything the scheduler needs is `bytes(from:to:)`,
/// computed from a cumulative count, so that no rounding accumulates over a long session.
public struct CapacitySchedule: Sendable, Equatable {
    enum Form: Sendable, Equatable {
        case piecewise(PiecewiseRate)
        case opportunities(MahimahiTrace)
    }

    let form: Form

    init(_ form: Form) { self.form = form }

    public static func constant(_ rate: LinkRate) -> CapacitySchedule {
        CapacitySchedule(.piecewise(PiecewiseRate(starts: [0], rates: [rate], ending: .hold)))
    }

    /// Rates from given times on; the first change must be at 0 and the times must increase
    /// (`LinkSpecReader` reports both), the last rate holds for ever.
    public static func steps(_ steps: [(at: Duration, rate: LinkRate)]) -> CapacitySchedule {
        precondition(steps.first?.at == .zero, "steps start at 0")
        return CapacitySchedule(.piecewise(PiecewiseRate(starts: steps.map(\.at.linkNanos), rates: steps.map(\.rate), ending: .hold)))
    }

    public static func pattern(_ pattern: CapacityPattern) -> CapacitySchedule {
        CapacitySchedule(.piecewise(pattern.piecewise))
    }

    public static func trace(_ trace: LinkTrace) -> CapacitySchedule {
        switch trace {
        case .mahimahi(let opportunities): CapacitySchedule(.opportunities(opportunities))
        case .rates(let piecewise): CapacitySchedule(.piecewise(piecewise))
        }
    }

    /// Bytes the link can carry in the time from `start` to `end`.
    public func bytes(from start: Duration, to end: Duration) -> Double {
        bytes(start.linkNanos, end.linkNanos)
    }

    /// The rate at `time`: for a Mahimahi trace, the delivery opportunities of the second from `time` on.
    public func rate(at time: Duration) -> LinkRate {
        let t = time.linkNanos
        switch form {
        case .piecewise(let piecewise): return piecewise.rate(at: t)
        case .opportunities:
            return LinkRate(bitsPerSecond: Int64((bytes(t, t + nanosPerSecond) * 8).rounded()))
        }
    }

    func bytes(_ start: Nanos, _ end: Nanos) -> Double {
        guard end > start else { return 0 }
        return cumulative(end) - cumulative(start)
    }

    /// Bytes the link could carry from 0 to `t`.
    func cumulative(_ t: Nanos) -> Double {
        switch form {
        case .piecewise(let piecewise): piecewise.cumulative(t)
        case .opportunities(let trace): Double(trace.opportunities(upTo: t)) * Double(MahimahiTrace.bytesPerOpportunity)
        }
    }
}

/// A rate constant between change points; after the last one it holds, or the whole loops.
public struct PiecewiseRate: Sendable, Equatable {
    enum Ending: Sendable, Equatable {
        case hold
        /// Start again from the first change point every `period`.
        case loop(period: Nanos)
    }

    let starts: [Nanos]
    let rates: [LinkRate]
    let ending: Ending
    /// Bytes carried from 0 to each change point.
    private let before: [Double]
    private let periodBytes: Double

    init(starts: [Nanos], rates: [LinkRate], ending: Ending) {
        precondition(!starts.isEmpty && starts.count == rates.count && starts[0] == 0)
        self.starts = starts
        self.rates = rates
        self.ending = ending
        var before: [Double] = [0]
        for index in 1..<max(1, starts.count) {
            before.append(before[index - 1] + Self.bytes(rates[index - 1], starts[index] - starts[index - 1]))
        }
        self.before = before
        if case .loop(let period) = ending {
            periodBytes = before[before.count - 1] + Self.bytes(rates[rates.count - 1], period - starts[starts.count - 1])
        } else {
            periodBytes = 0
        }
    }

    private static func bytes(_ rate: LinkRate, _ nanos: Nanos) -> Double {
        rate.bytesPerSecond * Double(nanos) / Double(nanosPerSecond)
    }

    /// The change point in force at `t` (already folded into one period).
    private func index(at t: Nanos) -> Int {
        var low = 0, high = starts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= t { low = middle } else { high = middle - 1 }
        }
        return low
    }

    private func folded(_ t: Nanos) -> (periods: Int64, within: Nanos) {
        if case .loop(let period) = ending { return (t / period, t % period) }
        return (0, t)
    }

    func rate(at t: Nanos) -> LinkRate { rates[index(at: folded(max(0, t)).within)] }

    func cumulative(_ t: Nanos) -> Double {
        let (periods, within) = folded(max(0, t))
        let i = index(at: within)
        return Double(periods) * periodBytes + before[i] + Self.bytes(rates[i], within - starts[i])
    }
}
