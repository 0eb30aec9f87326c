/// Parsers for the human-friendly values in rule files: durations ("2s", "500ms", "1.5s", "1m")
/// and transfer rates ("800kbps", "2Mbps", "64KB/s").
enum TextValues {
    private static let durationUnits: [(suffix: String, seconds: Double)] = [
        ("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600),
    ]

    /// A non-negative duration; nil when the text is not a number followed by ms, s, m or h.
    static func duration(_ text: String) -> Duration? {
        for unit in durationUnits where text.hasSuffix(unit.suffix) {
            let number = text.dropLast(unit.suffix.count)
            // "5m" must not be read as "5" + "m" when the text is "5ms": ms is tried first.
            guard let value = decimal(number), value >= 0 else { return nil }
            let milliseconds = (value * unit.seconds * 1000).rounded()
            guard milliseconds < 1e12 else { return nil }
            return .milliseconds(Int64(milliseconds))
        }
        return nil
    }

    private static let rateUnits: [(suffix: String, bytesPerUnit: Double)] = [
        ("Gbps", 1e9 / 8), ("Mbps", 1e6 / 8), ("kbps", 1e3 / 8), ("Kbps", 1e3 / 8), ("bps", 1.0 / 8),
        ("GiB/s", 1024 * 1024 * 1024), ("MiB/s", 1024 * 1024), ("KiB/s", 1024),
        ("GB/s", 1e9), ("MB/s", 1e6), ("KB/s", 1e3), ("kB/s", 1e3), ("B/s", 1),
    ]

    /// A positive rate in bytes per second (bits are divided by 8, K/M/G are powers of 1000, Ki/Mi/Gi of 1024).
    static func rate(_ text: String) -> Int? {
        for unit in rateUnits where text.hasSuffix(unit.suffix) {
            guard let value = decimal(text.dropLast(unit.suffix.count)), value > 0 else { return nil }
            let bytes = (value * unit.bytesPerUnit).rounded()
            guard bytes >= 1, bytes < 1e15 else { return nil }
            return Int(bytes)
        }
        return nil
    }

    /// Plain decimal without sign, exponent or spaces: "2", "1.5", "0.25".
    private static func decimal(_ text: Substring) -> Double? {
        guard !text.isEmpty, text.first != ".", text.last != ".",
              text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              text.filter({ $0 == "." }).count <= 1 else { return nil }
        return Double(text)
    }

    /// Formats a duration the way rule files write it ("2s", "1.5s", "500ms").
    static func format(_ duration: Duration) -> String {
        let ms = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        if ms % 1000 == 0 { return "\(ms / 1000)s" }
        if ms < 1000 { return "\(ms)ms" }
        return "\(Double(ms) / 1000)s"
    }
}

extension Duration {
    /// Seconds as a Double (for arithmetic with media times and the proxy's configuration): the
    /// standard library's `Duration / Duration`, named.
    public var seconds: Double { self / .seconds(1) }
}
