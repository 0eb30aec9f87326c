import JSON

/// A link as a spec gives it: rates may be relative to the ladder, to be resolved once the session
/// has fetched its master (`resolve(ladder:defaultSeed:)`). Read from JSON by `LinkSpecReader`.
public struct LinkSpec: Sendable, Equatable {
    public enum Capacity: Sendable, Equatable {
        case constant(RateSpec)
        /// From each `at` on, `rate`; the first at 0, the last holds.
        case steps([Step])
        case pattern(Pattern)
        /// A trace read from `name` (a file name, for messages).
        case trace(LinkTrace, name: String)
    }

    public struct Step: Sendable, Equatable {
        public var at: Duration
        public var rate: RateSpec
        public init(at: Duration, rate: RateSpec) {
            self.at = at
            self.rate = rate
        }
    }

    public struct Pattern: Sendable, Equatable {
        public var shape: CapacityPattern.Shape
        public var low: RateSpec
        public var high: RateSpec
        public var step: Duration
        public var levels: Int
        public var repeats: Bool
        public init(shape: CapacityPattern.Shape, low: RateSpec, high: RateSpec, step: Duration,
                    levels: Int = CapacityPattern.defaultLevels, repeats: Bool = true) {
            self.shape = shape
            self.low = low
            self.high = high
            self.step = step
            self.levels = levels
            self.repeats = repeats
        }
    }

    /// The profile the spec started from, if any.
    public var profile: String?
    public var capacity: Capacity
    public var latency: LinkLatency
    public var badState: BadStateModel?
    public var outages: [Outage]
    public var duringOutage: OutagePolicy
    public var seed: UInt64?
    public var tick: Duration
    /// Where the spec was read (`$`, `$.link`), for the messages of `resolve`.
    public var path: String

    public init(profile: String? = nil, capacity: Capacity, latency: LinkLatency = .none, badState: BadStateModel? = nil,
                outages: [Outage] = [], duringOutage: OutagePolicy = .wait, seed: UInt64? = nil,
                tick: Duration = Link.defaultTick, path: String = "$") {
        self.profile = profile
        self.capacity = capacity
        self.latency = latency
        self.badState = badState
        self.outages = outages
        self.duringOutage = duringOutage
        self.seed = seed
        self.tick = tick
        self.path = path
    }

    /// Whether a rate is relative to the ladder (the session's master must be known to run it).
    public var needsLadder: Bool {
        switch capacity {
        case .constant(let rate): rate.needsLadder
        case .steps(let steps): steps.contains { $0.rate.needsLadder }
        case .pattern(let pattern): pattern.low.needsLadder || pattern.high.needsLadder
        case .trace: false
        }
    }

    /// The link with every rate known. `ladder` is the variants' BANDWIDTH values in the master's
    /// order (nil when no master has been fetched); `defaultSeed` is used when the spec gives none.
    public func resolve(ladder: [Int]?, defaultSeed: UInt64) throws(LinkSpecError) -> Link {
        var problems: [LinkProblem] = []
        func rate(_ spec: RateSpec, _ path: String) -> LinkRate? {
            switch spec.resolve(ladder: ladder) {
            case .success(let rate): return rate
            case .failure(let error):
                problems.append(LinkProblem(path: path, message: error.message))
                return nil
            }
        }
        var schedule: CapacitySchedule?
        switch capacity {
        case .constant(let spec):
            schedule = rate(spec, JSONPath.child(path, "rate")).map(CapacitySchedule.constant)
        case .steps(let steps):
            let rates = steps.enumerated().map { rate($0.element.rate, JSONPath.child("\(JSONPath.child(path, "steps"))[\($0.offset)]", "rate")) }
            if rates.allSatisfy({ $0 != nil }) {
                schedule = .steps(zip(steps, rates).map { (at: $0.0.at, rate: $0.1!) })
            }
        case .pattern(let pattern):
            let patternPath = JSONPath.child(path, "pattern")
            if let low = rate(pattern.low, JSONPath.child(patternPath, "low")),
               let high = rate(pattern.high, JSONPath.child(patternPath, "high")) {
                if high <= low {
                    problems.append(LinkProblem(path: JSONPath.child(patternPath, "high"),
                                                message: "high (\(pattern.high) = \(high)) must be above low (\(pattern.low) = \(low))"))
                } else {
                    schedule = .pattern(CapacityPattern(shape: pattern.shape, low: low, high: high, step: pattern.step,
                                                        levels: pattern.levels, repeats: pattern.repeats))
                }
            }
        case .trace(let trace, _):
            schedule = .trace(trace)
        }
        guard let schedule, problems.isEmpty else { throw LinkSpecError(problems: problems) }
        return Link(capacity: schedule, latency: latency, badState: badState, outages: outages, duringOutage: duringOutage,
                    seed: seed ?? defaultSeed, tick: tick)
    }
}
