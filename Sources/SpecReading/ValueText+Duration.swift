extension ValueText {
    /// Nanoseconds in each unit, ms before m.
    private static let durationUnits: [(suffix: String, scale: Double)] = [
        ("ms", 1e6), ("s", 1e9), ("m", 60e9), ("h", 3600e9),
    ]

    /// The longest duration read: 10¹⁸ ns, about 31 years. An `Int64` of nanoseconds holds nine
    /// times that, so a few such durations added up still fit.
    public static let maximumNanos: Int64 = 1_000_000_000_000_000_000

    public static let durationHint = "use a number and ms, s, m or h: \"500ms\", \"2s\", \"1.5s\", \"1m\""

    /// A non-negative duration, to the nanosecond ("562.5ms" stays exact).
    public static func duration(_ text: String) -> Result<Duration, TextError> {
        let trimmed = text.trimmingSpaces
        if trimmed.hasPrefix("-") { return .failure(TextError("a duration cannot be negative: \(quoted(text))")) }
        guard let (value, scale) = numberAndUnit(trimmed, durationUnits) else {
            return .failure(TextError("invalid duration \(quoted(text)) (\(durationHint))"))
        }
        let nanos = (value * scale).rounded()
        guard nanos < Double(maximumNanos) else {
            return .failure(TextError("the duration \(quoted(text)) is too long (at most about 31 years)"))
        }
        return .success(.nanoseconds(Int64(nanos)))
    }

    /// A duration the way the files write it: "2s", "1.5s", "500ms", "562.5ms".
    public static func format(_ duration: Duration) -> String {
        if duration < .zero { return "-" + format(.zero - duration) }
        let (seconds, attoseconds) = duration.components
        let nanos = attoseconds / 1_000_000_000
        if nanos == 0 { return "\(seconds)s" }
        if seconds == 0, nanos % 1_000_000 == 0 { return "\(nanos / 1_000_000)ms" }
        if seconds == 0 { return "\(Double(nanos) / 1e6)ms" }
        // One division of the whole count, so that 1234ms prints as 1.234s.
        guard seconds < 9_000_000_000 else { return "\(seconds)s" }
        return "\(Double(seconds * 1_000_000_000 + nanos) / 1e9)s"
    }
}
