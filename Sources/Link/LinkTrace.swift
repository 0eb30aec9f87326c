import SpecReading

/// A recorded capacity, read from a file's text:
/// - `mahimahi`: Mahimahi's `mm-link` format. Each line is a time in whole milliseconds at which
///   one 1,500-byte packet may leave (a delivery opportunity); several lines may give the same
///   time (several packets in that millisecond); times never decrease. At its end the trace starts
///   again, its last time being the period: a trace of the lines `0`, `0`, `10` carries 3 × 1,500
///   bytes every 10 ms.
/// - `csv`: two columns, `seconds,kbps`: from that second on, the link carries that many kilobits
///   per second (1 kbps = 1,000 bit/s), until the next row; the first row is at 0, times increase;
///   the last row lasts as long as the one before it, then the trace starts again. An optional
///   first line `seconds,kbps`, blank lines and lines starting with `#` are ignored.
public enum LinkTrace: Sendable, Equatable {
    case mahimahi(MahimahiTrace)
    case rates(PiecewiseRate)

    public enum Format: String, Sendable, CaseIterable {
        case mahimahi, csv

        /// The format a file name suggests: `.csv` is `seconds,kbps`, anything else Mahimahi's.
        public static func guess(fileName: String) -> Format {
            fileName.lowercased().hasSuffix(".csv") ? .csv : .mahimahi
        }
    }

    /// A trace larger than this is refused rather than held in memory for every session using it.
    public static let maximumBytes = 4_000_000
    public static let maximumLines = 500_000

    /// Reads a trace; `name` (the file's name) starts every message.
    public static func parse(_ bytes: [UInt8], format: Format, name: String) -> Result<LinkTrace, TraceError> {
        guard bytes.count <= maximumBytes else {
            return .failure(TraceError(name, "the trace is \(bytes.count) bytes; the limit is \(maximumBytes) bytes (4 MB): shorten it or lower its resolution"))
        }
        var lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() }
        guard lines.count <= maximumLines else {
            return .failure(TraceError(name, "the trace has \(lines.count) lines; the limit is \(maximumLines) lines: shorten it or lower its resolution"))
        }
        switch format {
        case .mahimahi: return MahimahiTrace.parse(lines, name: name).map(LinkTrace.mahimahi)
        case .csv: return parseRates(lines, name: name).map(LinkTrace.rates)
        }
    }

    private static func parseRates(_ lines: [Substring], name: String) -> Result<PiecewiseRate, TraceError> {
        var starts: [Nanos] = []
        var rates: [LinkRate] = []
        var previousSeconds = ""
        for (offset, rawLine) in lines.enumerated() {
            let number = offset + 1
            let line = rawLine.trimmingSpaces
            if line.isEmpty || line.hasPrefix("#") { continue }
            if starts.isEmpty, line.lowercased().filter({ $0 != " " }) == "seconds,kbps" { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(\.trimmingSpaces)
            guard fields.count == 2 else {
                return .failure(TraceError(name, line: number, "expected two columns, seconds,kbps (such as \"1.5,800\"), got \"\(line)\""))
            }
            guard let seconds = ValueText.decimal(fields[0]) else {
                return .failure(TraceError(name, line: number, "the time \"\(fields[0])\" is not a number of seconds (such as 0, 1.5)"))
            }
            guard let kbps = ValueText.decimal(fields[1]) else {
                let what = fields[1].hasPrefix("-") ? "is negative" : "is not a number"
                return .failure(TraceError(name, line: number, "the rate \"\(fields[1])\" \(what) (kilobits per second, such as 800 or 0)"))
            }
            guard seconds * 1e9 < Double(ValueText.maximumNanos) else {
                return .failure(TraceError(name, line: number, "the time \(fields[0]) s is over about 31 years (seconds from the start, such as 0, 1.5)"))
            }
            let start = Nanos((seconds * 1e9).rounded())
            if starts.isEmpty, start != 0 {
                return .failure(TraceError(name, line: number, "the first row is at \(fields[0]) s; a trace starts at 0 (subtract the first time from every row)"))
            }
            if let last = starts.last, start <= last {
                return .failure(TraceError(name, line: number, "the time \(fields[0]) s is not after the previous row's \(previousSeconds) s (times must increase)"))
            }
            switch LinkRate.checked(bits: kbps * 1000, spelled: "\(fields[1]) kbps") {
            case .success(let rate): rates.append(rate)
            case .failure(let error): return .failure(TraceError(name, line: number, error.message))
            }
            starts.append(start)
            previousSeconds = String(fields[0])
        }
        guard !starts.isEmpty else { return .failure(TraceError(name, "the trace has no rows (expected lines of seconds,kbps)")) }
        guard rates.contains(where: { $0.bitsPerSecond > 0 }) else {
            return .failure(TraceError(name, "every rate in the trace is 0: the link would never carry anything (use an outage for a link that is down)"))
        }
        guard starts.count > 1 else { return .success(PiecewiseRate(starts: starts, rates: rates, ending: .hold)) }
        let period = starts[starts.count - 1] + (starts[starts.count - 1] - starts[starts.count - 2])
        return .success(PiecewiseRate(starts: starts, rates: rates, ending: .loop(period: period)))
    }
}

/// Mahimahi delivery opportunities, kept as the distinct times and how many opportunities there
/// are up to each, so that a repeated time costs nothing and a look-up is a binary search.
public struct MahimahiTrace: Sendable, Equatable {
    public static let bytesPerOpportunity = 1500

    /// Distinct times in milliseconds, increasing.
    let times: [Int64]
    /// Opportunities at or before each of `times`.
    let upTo: [Int64]
    /// The period in milliseconds: the last time.
    public let periodMilliseconds: Int64
    /// Opportunities in one period (lines of the file).
    public var opportunitiesPerPeriod: Int64 { upTo[upTo.count - 1] }

    static func parse(_ lines: [Substring], name: String) -> Result<MahimahiTrace, TraceError> {
        var times: [Int64] = []
        var upTo: [Int64] = []
        var count: Int64 = 0
        for (offset, rawLine) in lines.enumerated() {
            let number = offset + 1
            let line = rawLine.trimmingSpaces
            guard !line.isEmpty else {
                return .failure(TraceError(name, line: number, "the line is empty (each line is one time in milliseconds)"))
            }
            guard line.allSatisfy({ $0.isASCII && $0.isNumber }), let milliseconds = Int64(line) else {
                let what = line.hasPrefix("-") ? "is negative" : "is not a whole number of milliseconds"
                return .failure(TraceError(name, line: number, "\"\(line)\" \(what) (each line is one time in milliseconds, such as 0 or 17)"))
            }
            if let last = times.last, milliseconds < last {
                return .failure(TraceError(name, line: number, "\(milliseconds) ms is before the previous line's \(last) ms (times must not decrease)"))
            }
            count += 1
            if times.last == milliseconds {
                upTo[upTo.count - 1] = count
            } else {
                times.append(milliseconds)
                upTo.append(count)
            }
        }
        guard let last = times.last else {
            return .failure(TraceError(name, "the trace has no lines (each line is one time in milliseconds at which 1,500 bytes may leave)"))
        }
        guard last > 0 else {
            return .failure(TraceError(name, "the trace lasts 0 ms: its last time is its period and must be above 0"))
        }
        return .success(MahimahiTrace(times: times, upTo: upTo, periodMilliseconds: last))
    }

    /// Opportunities at or before `t` (nanoseconds), the trace looping: at the end of a period
    /// the next one's time-0 lines come on top of the period's last ones, as in `mm-link`.
    func opportunities(upTo t: Nanos) -> Int64 {
        let milliseconds = max(0, t) / nanosPerMillisecond
        let periods = milliseconds / periodMilliseconds
        let within = milliseconds % periodMilliseconds
        var low = 0, high = times.count - 1, found = -1
        while low <= high {
            let middle = (low + high) / 2
            if times[middle] <= within { found = middle; low = middle + 1 } else { high = middle - 1 }
        }
        return periods * opportunitiesPerPeriod + (found < 0 ? 0 : upTo[found])
    }
}

/// What is wrong with a trace: the file, the line when there is one, and what would fix it.
public struct TraceError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var message: String

    init(_ file: String, line: Int? = nil, _ message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String { line.map { "\(file) line \($0): \(message)" } ?? "\(file): \(message)" }
}
