import SpecReading

/// A link capacity in bits per second. The link's own limit is the fastest rate the files may
/// write, 100 Gbps: anything above is a typo (a unit missing or doubled), not a network.
public struct LinkRate: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var bitsPerSecond: Int64

    public static let limit = LinkRate(bitsPerSecond: Int64(ValueText.maximumBitsPerSecond))

    public init(bitsPerSecond: Int64) { self.bitsPerSecond = bitsPerSecond }

    /// A rate as written ("600kbps", "64KB/s"), to the bit.
    init(_ written: ValueText.Rate) { self.init(bitsPerSecond: Int64(written.bitsPerSecond.rounded())) }

    /// A rate in bits per second from a number (a trace's kbps column, a ladder's BANDWIDTH):
    /// refused when negative or above the limit.
    static func checked(bits: Double, spelled: String) -> Result<LinkRate, TextError> {
        ValueText.checked(bits: bits, spelled: spelled).map { LinkRate(bitsPerSecond: Int64($0.rounded())) }
    }

    public var bytesPerSecond: Double { Double(bitsPerSecond) / 8 }

    public static func < (a: LinkRate, b: LinkRate) -> Bool { a.bitsPerSecond < b.bitsPerSecond }

    /// "8Mbps", "600kbps", "1.44Mbps", "50bps": the largest unit that keeps the number short.
    public var description: String {
        let bits = Double(bitsPerSecond)
        for (unit, scale) in [("Gbps", 1e9), ("Mbps", 1e6), ("kbps", 1e3)] where bits >= scale {
            let value = bits / scale
            let rounded = (value * 1000).rounded() / 1000
            return rounded == rounded.rounded() ? "\(Int64(rounded))\(unit)" : "\(rounded)\(unit)"
        }
        return "\(bitsPerSecond)bps"
    }
}
