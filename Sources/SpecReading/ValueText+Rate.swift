extension ValueText {
    /// A rate as written: the number and the size of its unit in bits per second. Kept apart so
    /// that a reader in bytes ("800kbps" is 100,000 B/s) and one in bits round the exact value.
    public struct Rate: Sendable, Equatable {
        public var number: Double
        public var bitsPerUnit: Double

        public var bitsPerSecond: Double { number * bitsPerUnit }
        public var bytesPerSecond: Double { number * (bitsPerUnit / 8) }
    }

    /// Bits per second in each unit, the longer suffix of two that end alike first.
    private static let rateUnits: [(suffix: String, scale: Double)] = [
        ("Gbps", 1e9), ("Mbps", 1e6), ("kbps", 1e3), ("Kbps", 1e3), ("bps", 1),
        ("GiB/s", 8 * 1024 * 1024 * 1024), ("MiB/s", 8 * 1024 * 1024), ("KiB/s", 8 * 1024),
        ("GB/s", 8e9), ("MB/s", 8e6), ("KB/s", 8e3), ("kB/s", 8e3), ("B/s", 8),
    ]

    /// The fastest rate read: 100 Gbps. Anything above is a typo (a unit missing or doubled), not a
    /// network.
    public static let maximumBitsPerSecond: Double = 100e9

    public static let rateHint = "use a number and kbps, Mbps, Gbps, B/s, KB/s or MB/s: \"800kbps\", \"2Mbps\", \"64KB/s\""

    /// A rate from 0 to 100 Gbps; where 0 (or less than a byte a second) means nothing the caller
    /// says so.
    public static func rate(_ text: String) -> Result<Rate, TextError> {
        let trimmed = text.trimmingSpaces
        if trimmed.hasPrefix("-") { return .failure(TextError("a rate cannot be negative: \(quoted(text))")) }
        guard let (value, scale) = numberAndUnit(trimmed, rateUnits) else {
            return .failure(TextError("invalid rate \(quoted(text)) (\(rateHint))"))
        }
        let rate = Rate(number: value, bitsPerUnit: scale)
        return checked(bits: rate.bitsPerSecond, spelled: text).map { _ in rate }
    }

    /// A rate in bits per second from a number (a trace's kbps column, a ladder's BANDWIDTH):
    /// refused when negative or above `maximumBitsPerSecond`.
    public static func checked(bits: Double, spelled: String) -> Result<Double, TextError> {
        guard bits.isFinite, bits >= 0 else { return .failure(TextError("a rate cannot be negative: \(spelled)")) }
        guard bits <= maximumBitsPerSecond else {
            return .failure(TextError("the rate \(spelled) is above the limit of 100Gbps (a unit too many?)"))
        }
        return .success(bits)
    }
}
