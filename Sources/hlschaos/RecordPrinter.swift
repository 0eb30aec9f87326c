import Foundation
import Proxy
import Records

/// The terminal view of a running proxy: one compact line per session start and per faulted
/// request (every request with `--verbose`), coloured on a terminal, plain through a pipe.
///
///     14:45:02.123  tv1       + session started from 192.168.1.20
///     14:45:09.480  tv1       seg v2 n42    503       0 B    1 ms  status 503  status-503/seg-503
struct RecordPrinter {
    var verbose: Bool
    var colour: Bool
    private var seen = Set<String>()

    init(verbose: Bool, colour: Bool = isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil) {
        self.verbose = verbose
        self.colour = colour
    }

    /// The lines `record` makes (none for an unfaulted request without `verbose`).
    mutating func lines(for record: RequestRecord) -> [String] {
        var lines: [String] = []
        if seen.insert(record.session).inserted {
            if seen.count > 100_000 { seen = [record.session] }  // bounded: an old session may be announced again
            lines.append(line(record, paint("+ session started from \(record.client.split(separator: ":").dropLast().joined(separator: ":"))", .cyan)))
        }
        guard verbose || record.isFaulted || record.status.map({ $0 >= 500 }) == true else { return lines }
        var fields = [
            pad(resource(record), 14),
            pad(record.status.map(String.init) ?? "---", 4),
            pad(Self.bytes(record.bytesSent), 9, right: true),
            pad(Self.milliseconds(record.duration), 8, right: true),
        ]
        if record.ending != .complete { fields.append(record.ending.rawValue) }
        if record.isFaulted {
            fields.append(record.actions.joined(separator: ", "))
            fields.append(record.matchedRules.joined(separator: ","))
        }
        if let error = record.upstream?.error { fields.append("upstream: \(error)") }
        var text = fields.joined(separator: "  ")
        if let status = record.status, status >= 400 || record.ending != .complete {
            text = paint(text, .red)
        } else if record.isFaulted {
            text = paint(text, .yellow)
        } else if record.ending != .complete {
            text = paint(text, .red)
        }
        lines.append(line(record, text))
        return lines
    }

    private func line(_ record: RequestRecord, _ text: String) -> String {
        paint(Self.clock(record.time), .dim) + "  " + pad(record.session, 9) + " " + text
    }

    private func resource(_ record: RequestRecord) -> String {
        guard let kind = record.kind else { return record.path.count > 14 ? String(record.path.prefix(13)) + "…" : record.path }
        var text = ["segment": "seg", "sessionData": "data"][kind] ?? kind
        if let variant = record.variant { text += " v\(variant)" }
        if let rendition = record.rendition { text += " r\(rendition)" }
        if let msn = record.msn { text += " n\(msn)" }
        if record.copy == "backup" { text += " b" }
        return text
    }

    private enum Colour: String { case red = "31", yellow = "33", cyan = "36", dim = "2" }

    private func paint(_ text: String, _ colour: Colour) -> String {
        self.colour ? "\u{1B}[\(colour.rawValue)m\(text)\u{1B}[0m" : text
    }

    private func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        guard text.count < width else { return text }
        let space = String(repeating: " ", count: width - text.count)
        return right ? space + text : text + space
    }

    static func bytes(_ count: Int) -> String {
        switch count {
        case ..<1024: "\(count) B"
        case ..<(1024 * 1024): String(format: "%.1f KB", Double(count) / 1024)
        default: String(format: "%.1f MB", Double(count) / 1_048_576)
        }
    }

    static func milliseconds(_ seconds: Double) -> String {
        seconds < 10 ? "\(Int((seconds * 1000).rounded())) ms" : String(format: "%.1f s", seconds)
    }

    static func clock(_ date: Date) -> String {
        var components = Calendar(identifier: .gregorian).dateComponents(in: .current, from: date)
        components.nanosecond = components.nanosecond ?? 0
        return String(format: "%02d:%02d:%02d.%03d", components.hour ?? 0, components.minute ?? 0, components.second ?? 0, (components.nanosecond ?? 0) / 1_000_000)
    }
}
