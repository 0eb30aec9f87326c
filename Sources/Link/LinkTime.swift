/// The link counts time in nanoseconds of the session's clock (an `Int64`: 292 years), handed in by
/// the caller as a `Duration`; it never reads a clock itself.
typealias Nanos = Int64

let nanosPerSecond: Nanos = 1_000_000_000
let nanosPerMillisecond: Nanos = 1_000_000

extension Duration {
    /// Whole nanoseconds, clamped to what an `Int64` holds (negative durations to zero).
    var linkNanos: Nanos {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        guard seconds < Int64.max / nanosPerSecond - 1 else { return .max / 2 }
        return seconds * nanosPerSecond + attoseconds / 1_000_000_000
    }

    static func linkNanos(_ nanos: Nanos) -> Duration { .nanoseconds(nanos) }
}
