/// The spellings of durations and rates in link specs: the same as rule files accept
/// (`rules/README.md` *Values*: "500ms", "2s", "1.5s", "1m", "1h"; "800kbps", "2Mbps", "64KB/s"),
/// but with a message saying what is wrong instead of nil. The link keeps its own copy because the
/// rule files' parser lives in `Chaos`, which the link sits below.
enum LinkText {
    private static let durationUnits: [(suffix: String, nanos: Double)] = [
        ("ms", 1e6), ("s", 1e9), ("m", 60e9), ("h", 3600e9),
    ]

    static let durationHint = "use a number and ms, s, m or h: \"500ms\", \"2s\", \"1.5s\", \"1m\""
    static let rateHint = "use a number and kbps, Mbps, Gbps, B/s, KB/s or MB/s: \"800kbps\", \"2Mbps\", \"64KB/s\""

    /// A non-negative duration in nanoseconds (to the nanosecond: "562.5ms" stays exact).
    static func duration(_ text: String) -> Result<Nanos, TextError> {
        let trimmed = text.trimmingSpaces
        if trimmed.hasPrefix("-") { return .failure(TextError("a duration cannot be negative: \"\(text)\"")) }
        for unit in durationUnits where trimmed.hasSuffix(unit.suffix) {
            // "5ms" must not be read as "5m" + "s": ms is tried first.
            guard let value = decimal(trimmed.dropLast(unit.suffix.count)) else { break }
            let nanos = (value * unit.nanos).rounded()
            guard nanos < 1e17 else { return .failure(TextError("the duration \"\(text)\" is too long (at most a few years)")) }
            return .success(Nanos(nanos))
        }
        return .failure(TextError("invalid duration \"\(text)\" (\(durationHint))"))
    }

    private static let rateUnits: [(suffix: String, bitsPerUnit: Double)] = [
        ("Gbps", 1e9), ("Mbps", 1e6), ("kbps", 1e3), ("Kbps", 1e3), ("bps", 1),
        ("GiB/s", 8 * 1024 * 1024 * 1024), ("MiB/s", 8 * 1024 * 1024), ("KiB/s", 8 * 1024),
        ("GB/s", 8e9), ("MB/s", 8e6), ("KB/s", 8e3), ("kB/s", 8e3), ("B/s", 8),
    ]

    /// A rate; zero is accepted here (where it is meaningless the caller says so), negative and
    /// over the link's limit are not.
    static func rate(_ text: String) -> Result<LinkRate, TextError> {
        let trimmed = text.trimmingSpaces
        if trimmed.hasPrefix("-") { return .failure(TextError("a rate cannot be negative: \"\(text)\"")) }
        for unit in rateUnits where trimmed.hasSuffix(unit.suffix) {
            guard let value = decimal(trimmed.dropLast(unit.suffix.count)) else { break }
            return checked(bits: value * unit.bitsPerUnit, spelled: text)
        }
        return .failure(TextError("invalid rate \"\(text)\" (\(rateHint))"))
    }

    /// A rate in bits per second from a number (a trace's kbps column, a ladder's BANDWIDTH).
    static func checked(bits: Double, spelled: String) -> Result<LinkRate, TextError> {
        guard bits.isFinite, bits >= 0 else { return .failure(TextError("a rate cannot be negative: \(spelled)")) }
        guard bits <= Double(LinkRate.limit.bitsPerSecond) else {
            return .failure(TextError("the rate \(spelled) is above the link's limit of \(LinkRate.limit) (a unit too many?)"))
        }
        return .success(LinkRate(bitsPerSecond: Int64(bits.rounded())))
    }

    /// Plain decimal without sign, exponent or spaces: "2", "1.5", "0.25".
    static func decimal(_ text: Substring) -> Double? {
        guard !text.isEmpty, text.first != ".", text.last != ".",
              text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              text.filter({ $0 == "." }).count <= 1 else { return nil }
        return Double(text)
    }
}

struct TextError: Error, Equatable {
    var message: String
    init(_ message: String) { self.message = message }
}

extension String {
    var trimmingSpaces: String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" || last == "\r" { scalars.removeLast() }
        return String(scalars)
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text.removeLast() }
        return text
    }
}
