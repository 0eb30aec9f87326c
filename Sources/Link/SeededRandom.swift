/// SplitMix64: a small, fast generator whose whole state is one word, so that a link's randomness
/// (jitter, bad-state sojourns) is the same on every run with the same seed. Not for secrets.
struct SeededRandom: Sendable, Equatable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    /// A generator for one purpose, independent of the others made from the same seed: the
    /// bad-state timeline must not shift when one more request draws a jitter.
    init(seed: UInt64, stream: UInt64) {
        var mixer = SeededRandom(seed: seed ^ (stream &* 0x9E37_79B9_7F4A_7C15))
        state = mixer.next()
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// Exponentially distributed with the given mean (memoryless sojourns).
    mutating func exponential(mean: Double) -> Double {
        // 1 - unit() is in (0, 1], so the logarithm is finite.
        -mean * naturalLog(1 - unit())
    }
}

/// ln(x) for x > 0 with the standard library alone: x = m · 2^e with m in [1, 2), and
/// ln(m) = 2 · atanh((m - 1) / (m + 1)), whose series converges fast for |z| ≤ 1/3.
func naturalLog(_ x: Double) -> Double {
    precondition(x > 0)
    let m = x.significand
    let z = (m - 1) / (m + 1)
    let z2 = z * z
    var term = z, sum = 0.0, k = 1.0
    while true {
        let next = sum + term / k
        if next == sum { break }
        sum = next
        term *= z2
        k += 2
    }
    return 2 * sum + Double(x.exponent) * 0.693_147_180_559_945_309_417_232_121_458
}
