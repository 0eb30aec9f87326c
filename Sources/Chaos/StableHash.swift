/// Deterministic hashing for seeded randomness: FNV-1a over the bytes, finished with SplitMix64.
/// (Swift's Hasher is randomly seeded per process and must not be used here.)
public struct StableHash: Sendable {
    private var state: UInt64 = 0xcbf2_9ce4_8422_2325

    public init() {}

    public mutating func combine(_ text: String) {
        for byte in text.utf8 { mix(byte) }
        mix(0xFF)    // separator, so ("ab","c") and ("a","bc") differ
    }

    public mutating func combine(_ number: UInt64) {
        var value = number
        for _ in 0..<8 { mix(UInt8(truncatingIfNeeded: value)); value >>= 8 }
    }

    public mutating func combine(_ number: Int) { combine(UInt64(bitPattern: Int64(number))) }

    private mutating func mix(_ byte: UInt8) {
        state ^= UInt64(byte)
        state = state &* 0x0000_0100_0000_01B3
    }

    public var value: UInt64 { Self.splitMix(state) }

    /// A uniform draw in [0, 1).
    public var unitInterval: Double { Double(value >> 11) * 0x1.0p-53 }

    public static func splitMix(_ input: UInt64) -> UInt64 {
        var z = input &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
