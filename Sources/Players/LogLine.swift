import Foundation

/// One line a player printed, with when it arrived (seconds since the player started) when known.
/// The log parsers take these: a driver passes lines read while the player ran (with times), a unit
/// test passes a pasted excerpt (without).
public struct LogLine: Sendable, Equatable {
    public var time: Double?
    public var text: String

    public init(time: Double? = nil, _ text: String) {
        self.time = time; self.text = text
    }

    /// `text` cut into lines at `\n` and `\r` (players redraw status lines with `\r`), terminal
    /// erase sequences removed, empty lines dropped.
    public static func split(_ text: String, time: Double? = nil) -> [LogLine] {
        text.split(omittingEmptySubsequences: true) { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
            .map { LogLine(time: time, clean(String($0))) }
            .filter { !$0.text.isEmpty }
    }

    /// Drops the `ESC[K` (erase to end of line) that mpv and ffmpeg put before a status line.
    static func clean(_ line: String) -> String {
        line.contains("\u{1B}[") ? line.replacingOccurrences(of: "\u{1B}[K", with: "") : line
    }

    /// Both streams as one, in arrival order (lines without a time keep their place after the
    /// timed ones before them).
    static func merge(_ first: [LogLine], _ second: [LogLine]) -> [LogLine] {
        var merged: [LogLine] = []
        merged.reserveCapacity(first.count + second.count)
        var i = 0, j = 0
        while i < first.count || j < second.count {
            if j >= second.count || (i < first.count && (first[i].time ?? -1) <= (second[j].time ?? .infinity)) {
                merged.append(first[i]); i += 1
            } else {
                merged.append(second[j]); j += 1
            }
        }
        return merged
    }
}

/// The player's output as kept in a report: the last `limit` bytes, with a note when the start
/// was dropped (the whole output stays in the run's work directory).
enum ReportLog {
    static let limit = 256 << 10

    static func text(_ lines: [LogLine], limit: Int = ReportLog.limit) -> String {
        cap(lines.map(\.text).joined(separator: "\n") + (lines.isEmpty ? "" : "\n"), limit: limit)
    }

    static func cap(_ text: String, limit: Int = ReportLog.limit) -> String {
        let bytes = Array(text.utf8)
        guard bytes.count > limit else { return text }
        var start = bytes.count - limit
        // Start on a line of its own.
        while start < bytes.count, bytes[start - 1] != UInt8(ascii: "\n") { start += 1 }
        return "[hlschaos: the first \(start) bytes of the log are left out; the whole log is in the run's directory]\n"
            + String(decoding: bytes[start...], as: UTF8.self)
    }
}
