import BundleFormat
import Foundation

/// How a bundle is replayed: where its schedule starts, how fast it runs, and whether it starts
/// over at the end. `hlschaos replay --from 12m --speed 2 --loop`.
public struct ReplayOptions: Sendable, Equatable {
    /// Seconds into the recording where the replay starts (`--from`).
    public var from: Double
    /// Recording seconds per real second (`--speed`): 2 runs the schedule twice as fast and halves
    /// every recorded delay.
    public var speed: Double
    /// At the end of the recording, start over at `from` (`--loop`).
    public var loop: Bool

    public init(from: Double = 0, speed: Double = 1, loop: Bool = false) {
        self.from = from; self.speed = speed; self.loop = loop
    }

    /// The fastest `--speed` accepted: beyond it recorded delays shrink below what a timer on a
    /// loaded machine can honour.
    public static let maximumSpeed = 100.0
    public static let minimumSpeed = 0.01

    /// `--from`: "12m", "90s", "1h5m30s", "1.5s", "12:30" (minutes:seconds), "1:02:03", or plain
    /// seconds ("45"). Throws a message saying what is accepted.
    public static func parseOffset(_ text: String) throws(ReplayError) -> Double {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let problem = ReplayError(
            "--from \"\(text)\" is not a position in the recording: give seconds or a duration such as 45, 90s, 12m, 1h5m30s or 12:30")
        guard !trimmed.isEmpty else { throw problem }
        if trimmed.contains(":") {
            let parts = trimmed.split(separator: ":", omittingEmptySubsequences: false)
            guard (2...3).contains(parts.count) else { throw problem }
            var seconds = 0.0
            for (index, part) in parts.enumerated() {
                let isLast = index == parts.count - 1
                guard let value = decimal(part, allowFraction: isLast), isLast || value == value.rounded(.down) else { throw problem }
                if index > 0, value >= 60 { throw problem }
                seconds = seconds * 60 + value
            }
            return seconds
        }
        if let plain = decimal(Substring(trimmed), allowFraction: true) { return plain }
        // A sequence of number+unit pieces, units in decreasing order: 1h5m30s, 2m30.5s, 500ms.
        let units: [(String, Double)] = [("h", 3600), ("ms", 0.001), ("m", 60), ("s", 1)]
        var rest = Substring(trimmed)
        var total = 0.0
        var lastUnit = Double.infinity
        while !rest.isEmpty {
            let number = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
            guard let value = decimal(number, allowFraction: true) else { throw problem }
            rest = rest.dropFirst(number.count)
            guard let unit = units.first(where: { rest.hasPrefix($0.0) }), unit.1 < lastUnit else { throw problem }
            rest = rest.dropFirst(unit.0.count)
            total += value * unit.1
            lastUnit = unit.1
        }
        return total
    }

    /// `--speed`: "2", "0.5", "2x". Throws when it is not a number within the accepted range.
    public static func parseSpeed(_ text: String) throws(ReplayError) -> Double {
        var trimmed = Substring(text.trimmingCharacters(in: .whitespaces))
        if trimmed.hasSuffix("x") || trimmed.hasSuffix("×") { trimmed = trimmed.dropLast() }
        guard let value = decimal(trimmed, allowFraction: true), value > 0 else {
            throw ReplayError("--speed \"\(text)\" is not a positive number: give for example 2 (twice as fast) or 0.5 (half speed)")
        }
        guard value >= minimumSpeed, value <= maximumSpeed else {
            throw ReplayError("--speed \(text) is outside \(format(minimumSpeed))…\(format(maximumSpeed)): recorded delays would not be kept")
        }
        return value
    }

    /// "12m 30s", "45.2s", "1h 02m 03s": a recording position or length for messages.
    public static func describe(seconds: Double) -> String {
        guard seconds.isFinite else { return "\(seconds)" }
        if seconds < 60 { return format((seconds * 10).rounded() / 10) + "s" }
        let whole = Int(seconds.rounded())
        let (hours, minutes, rest) = (whole / 3600, whole / 60 % 60, whole % 60)
        if hours > 0 { return "\(hours)h \(minutes)m \(rest)s" }
        return "\(minutes)m \(rest)s"
    }

    /// "2×", "0.5×".
    public static func describe(speed: Double) -> String { "\(format(speed))×" }

    static func format(_ value: Double) -> String {
        let rounded = (value * 1000).rounded() / 1000
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    private static func decimal(_ text: Substring, allowFraction: Bool) -> Double? {
        guard !text.isEmpty, text.first != ".", text.last != ".",
              text.allSatisfy({ $0.isASCII && ($0.isNumber || (allowFraction && $0 == ".")) }),
              text.filter({ $0 == "." }).count <= 1, let value = Double(text), value.isFinite else { return nil }
        return value
    }
}

/// Why a bundle cannot be replayed as asked (a `--from` or `--speed` that cannot be used, a
/// bundle with nothing to serve), in words.
public struct ReplayError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The replay's clock: which second of the recording it is, and which pass over it (`--loop`).
///
/// The schedule starts with the first request the origin answers (so that a replay started in a
/// terminal and opened in a player a minute later does not begin a minute in), at `from`.
struct ReplayClock: Sendable {
    let options: ReplayOptions
    /// The recording's end, in seconds from its start (`RecordingBundle.duration`).
    let end: Double

    /// The length of one pass: from `from` to the end.
    var cycle: Double { max(end - options.from, 0) }

    struct Position: Equatable {
        /// Seconds from the recording's start.
        var seconds: Double
        /// 0 for the first pass; counts the starts-over of `--loop`.
        var loop: Int
    }

    /// The position `elapsed` real seconds after the schedule started.
    func position(afterElapsed elapsed: Double) -> Position {
        let advanced = max(elapsed, 0) * options.speed
        guard options.loop, cycle > 0 else { return Position(seconds: options.from + advanced, loop: 0) }
        let passes = (advanced / cycle).rounded(.down)
        let loop = passes >= Double(Int.max / 4) ? Int.max / 4 : Int(passes)
        return Position(seconds: options.from + advanced - passes * cycle, loop: loop)
    }
}
