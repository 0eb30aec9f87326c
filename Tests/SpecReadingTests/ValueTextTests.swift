import Testing
import SpecReading

/// Every spelling the rule files (Chaos's `TextValues`) or the link specs (Link's `LinkText`)
/// accepted before the two became `ValueText`, with its value, and the spellings refused.
@Suite struct ValueTextTests {
    /// Durations, in nanoseconds. "562.5ms" and "0.4ms": the rule files rounded to the millisecond
    /// (563ms, 0ms); the link kept the nanosecond, as `ValueText` does.
    static let durations: [(String, Int64)] = [
        ("500ms", 500_000_000), ("2s", 2_000_000_000), ("1.5s", 1_500_000_000), ("1m", 60_000_000_000),
        ("1h", 3_600_000_000_000), ("0s", 0), ("0ms", 0), ("0.25s", 250_000_000), ("90m", 5_400_000_000_000),
        ("562.5ms", 562_500_000), ("0.4ms", 400_000), ("007s", 7_000_000_000),
        // The link's: spaces, tabs and a CRLF file's carriage return around the value.
        (" 2s", 2_000_000_000), ("2s ", 2_000_000_000), ("\t30s\r", 30_000_000_000),
        // The rule files': up to 10¹⁸ ns (the link stopped at 10¹⁷).
        ("100000h", 360_000_000_000_000_000), ("277777h", 999_997_200_000_000_000),
    ]

    static let badDurations: [(String, String)] = [
        ("2", #"invalid duration "2" (use a number and ms, s, m or h: "500ms", "2s", "1.5s", "1m")"#),
        ("s", #"invalid duration "s" (use a number and ms, s, m or h: "500ms", "2s", "1.5s", "1m")"#),
        ("2 s", #"invalid duration "2 s" (use a number and ms, s, m or h: "500ms", "2s", "1.5s", "1m")"#),
        ("1.s", #"invalid duration "1.s" (use a number and ms, s, m or h: "500ms", "2s", "1.5s", "1m")"#),
        (".5s", #"invalid duration ".5s" (use a number and ms, s, m or h: "500ms", "2s", "1.5s", "1m")"#),
        ("1e3s", #"invalid duration "1e3s" (use a number and ms, s, m or h: "500ms", "2s", "1.5s", "1m")"#),
        ("2sec", #"invalid duration "2sec" (use a number and ms, s, m or h: "500ms", "2s", "1.5s", "1m")"#),
        ("+1s", #"invalid duration "+1s" (use a number and ms, s, m or h: "500ms", "2s", "1.5s", "1m")"#),
        ("1,5s", #"invalid duration "1,5s" (use a number and ms, s, m or h: "500ms", "2s", "1.5s", "1m")"#),
        ("２s", #"invalid duration "２s" (use a number and ms, s, m or h: "500ms", "2s", "1.5s", "1m")"#),
        ("", #"invalid duration "" (use a number and ms, s, m or h: "500ms", "2s", "1.5s", "1m")"#),
        ("-1s", #"a duration cannot be negative: "-1s""#),
        ("277778h", #"the duration "277778h" is too long (at most about 31 years)"#),
        ("99999999999h", #"the duration "99999999999h" is too long (at most about 31 years)"#),
    ]

    @Test func durationsEitherReaderAcceptedReadTheSame() throws {
        for (text, nanos) in Self.durations {
            #expect(try ValueText.duration(text).get() == .nanoseconds(nanos), "\(text)")
        }
    }

    @Test func badDurationsSayWhatWouldFixThem() {
        for (text, message) in Self.badDurations {
            #expect(ValueText.duration(text) == .failure(TextError(message)), "\(text)")
        }
    }

    /// Rates: bits per second as the link reads them, bytes per second as the rule files do.
    static let rates: [(String, bits: Double, bytes: Double)] = [
        ("800kbps", 800_000, 100_000), ("600Kbps", 600_000, 75_000), ("2Mbps", 2_000_000, 250_000),
        ("1Gbps", 1e9, 1.25e8), ("100Gbps", 1e11, 1.25e10), ("50bps", 50, 6.25), ("1.44Mbps", 1_440_000, 180_000),
        ("64KB/s", 512_000, 64_000), ("64kB/s", 512_000, 64_000), ("1.5MB/s", 12_000_000, 1_500_000),
        ("1GB/s", 8e9, 1e9), ("10B/s", 80, 10), ("1KiB/s", 8192, 1024), ("1MiB/s", 8_388_608, 1_048_576),
        ("1GiB/s", 8_589_934_592, 1_073_741_824),
        // The link's: 0 (the caller says where it means nothing) and spaces around the value.
        ("0kbps", 0, 0), (" 2Mbps\t", 2_000_000, 250_000),
    ]

    static let badRates: [(String, String)] = [
        ("fast", #"invalid rate "fast" (use a number and kbps, Mbps, Gbps, B/s, KB/s or MB/s: "800kbps", "2Mbps", "64KB/s")"#),
        ("800", #"invalid rate "800" (use a number and kbps, Mbps, Gbps, B/s, KB/s or MB/s: "800kbps", "2Mbps", "64KB/s")"#),
        ("2 Mbps", #"invalid rate "2 Mbps" (use a number and kbps, Mbps, Gbps, B/s, KB/s or MB/s: "800kbps", "2Mbps", "64KB/s")"#),
        ("8 Mbps/s", #"invalid rate "8 Mbps/s" (use a number and kbps, Mbps, Gbps, B/s, KB/s or MB/s: "800kbps", "2Mbps", "64KB/s")"#),
        ("2mbps", #"invalid rate "2mbps" (use a number and kbps, Mbps, Gbps, B/s, KB/s or MB/s: "800kbps", "2Mbps", "64KB/s")"#),
        ("1.5.5Mbps", #"invalid rate "1.5.5Mbps" (use a number and kbps, Mbps, Gbps, B/s, KB/s or MB/s: "800kbps", "2Mbps", "64KB/s")"#),
        ("-1Mbps", #"a rate cannot be negative: "-1Mbps""#),
        // The rule files took up to 8 Pbps; a throttle that fast is a unit too many, as on the link.
        ("200Gbps", "the rate 200Gbps is above the limit of 100Gbps (a unit too many?)"),
        ("13GB/s", "the rate 13GB/s is above the limit of 100Gbps (a unit too many?)"),
    ]

    @Test func ratesEitherReaderAcceptedReadTheSame() throws {
        for (text, bits, bytes) in Self.rates {
            let rate = try ValueText.rate(text).get()
            #expect(rate.bitsPerSecond == bits && rate.bytesPerSecond == bytes, "\(text): \(rate.bitsPerSecond) bit/s, \(rate.bytesPerSecond) B/s")
        }
    }

    @Test func badRatesSayWhatWouldFixThem() {
        for (text, message) in Self.badRates {
            #expect(ValueText.rate(text).map(\.bitsPerSecond) == .failure(TextError(message)), "\(text)")
        }
    }

    /// The rule files' utilisation bounds ("70%") and the link's ladder changes ("+ 5 %", after the sign).
    @Test func percentages() {
        for (text, percent) in [("70%", 70.0), ("72.5%", 72.5), ("0%", 0), ("100%", 100), ("5 %", 5), (" 10%", 10), ("250%", 250)] {
            #expect(ValueText.percentage(text[...]) == percent, "\(text)")
        }
        for text in ["70", "-5%", "+5%", "%", ".5%", "5.%", "70%%", "seventy%", "1 0%", ""] {
            #expect(ValueText.percentage(text[...]) == nil, "\(text)")
        }
    }

    @Test func durationsAreWrittenAsTheyAreRead() throws {
        for (duration, text) in [(Duration.seconds(2), "2s"), (.milliseconds(1500), "1.5s"), (.milliseconds(1234), "1.234s"),
                                 (.milliseconds(500), "500ms"), (.microseconds(562_500), "562.5ms"), (.zero, "0s"),
                                 (.seconds(90 * 60), "5400s"), (.milliseconds(-500), "-500ms")] {
            #expect(ValueText.format(duration) == text)
            if duration >= .zero { #expect(try ValueText.duration(text).get() == duration) }
        }
    }
}
