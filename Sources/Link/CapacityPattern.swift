/// A capacity that moves between a low and a high rate in levels of `step` each, and repeats:
/// - `square`: high for a step, low for a step;
/// - `rampUp`: `levels` rates evenly from low to high, then again from low;
/// - `rampDown`: the same from high to low;
/// - `pyramid`: up from low to high and back down, the ends once per period.
/// With `repeats` false the last level holds instead of starting again.
public struct CapacityPattern: Sendable, Equatable {
    public enum Shape: String, Sendable, CaseIterable {
        case square, rampUp, rampDown, pyramid
    }

    public var shape: Shape
    public var low: LinkRate
    public var high: LinkRate
    public var step: Duration
    /// How many rates a ramp or pyramid passes through, ends included (a square wave has 2).
    public var levels: Int
    public var repeats: Bool

    public static let defaultLevels = 5
    public static let levelRange = 2...100

    public init(shape: Shape, low: LinkRate, high: LinkRate, step: Duration, levels: Int = defaultLevels, repeats: Bool = true) {
        self.shape = shape
        self.low = low
        self.high = high
        self.step = step
        self.levels = shape == .square ? 2 : levels
        self.repeats = repeats
    }

    /// The rates of one period, a step each.
    public var rates: [LinkRate] {
        let ramp = (0..<levels).map { level in
            LinkRate(bitsPerSecond: low.bitsPerSecond
                + Int64((Double(high.bitsPerSecond - low.bitsPerSecond) * Double(level) / Double(levels - 1)).rounded()))
        }
        switch shape {
        case .square: return [high, low]
        case .rampUp: return ramp
        case .rampDown: return ramp.reversed()
        case .pyramid: return ramp + ramp.dropFirst().dropLast().reversed()
        }
    }

    var piecewise: PiecewiseRate {
        let rates = self.rates
        let step = self.step.linkNanos
        let starts = rates.indices.map { Nanos($0) * step }
        return PiecewiseRate(starts: starts, rates: rates, ending: repeats ? .loop(period: Nanos(rates.count) * step) : .hold)
    }
}
