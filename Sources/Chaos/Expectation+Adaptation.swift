import SpecReading

/// The words of the checks of a player's adaptation to the session's link.
extension Expectation.Check {
    var adaptationWords: String {
        switch self {
        case .switchedDownOnLink(let within):
            "switched down" + Self.within(within) + " each time the link fell below the variant in use"
        case .switchedUpOnLink(let within):
            "switched back up" + Self.within(within) + " each time the link recovered"
        case .switches(let low, let high, let perMinute):
            if high == 0 { "did not switch variant" } else if perMinute {
                "switched variant " + Self.rateBounds(low, high) + " a minute"
            } else {
                "switched variant " + Self.bounds(low.map { Int($0) }, high.map { Int($0) }, "time")
            }
        case .stalls(let low, let high):
            high == 0 ? "did not stall" : "stalled " + Self.bounds(low, high, "time")
        case .utilisation(let low, let high):
            "used " + Self.percentBounds(low, high) + " of the link"
        case .overshoot(let atMost):
            "spent at most \(ValueText.format(atMost)) on a variant the link could not carry"
        default:
            words
        }
    }

    private static func within(_ duration: Duration?) -> String {
        duration.map { " within \(ValueText.format($0))" } ?? ""
    }

    /// "at most 2 times", "at least 0.5 times", "once", "1 to 2.5 times".
    private static func rateBounds(_ low: Double?, _ high: Double?) -> String {
        func times(_ value: Double) -> String { value == 1 ? "once" : "\(Self.number(value)) times" }
        switch (low, high) {
        case let (low?, high?) where low == high: return "exactly " + times(low)
        case let (low?, high?): return "\(Self.number(low)) to \(times(high))"
        case let (low?, nil): return "at least " + times(low)
        case let (nil, high?): return "at most " + times(high)
        case (nil, nil): return "any number of times"
        }
    }

    /// "at least 70%", "at most 95%", "70% to 95%".
    private static func percentBounds(_ low: Double?, _ high: Double?) -> String {
        func percent(_ fraction: Double) -> String { Self.number(fraction * 100) + "%" }
        switch (low, high) {
        case let (low?, high?) where low == high: return "exactly " + percent(low)
        case let (low?, high?): return percent(low) + " to " + percent(high)
        case let (low?, nil): return "at least " + percent(low)
        case let (nil, high?): return "at most " + percent(high)
        case (nil, nil): return "any share"
        }
    }

    /// "2", "1.5", "72.5": at most four decimals, no trailing zeros.
    static func number(_ value: Double) -> String {
        let rounded = (value * 10_000).rounded() / 10_000
        if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int(rounded)) }
        return String(rounded)
    }
}
