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

    /// Which records can make a line: every one with `verbose`, else faults, 5xx and the first
    /// record of each session. Runs on the event loop for every record, so that the others never
    /// wake the printer (a wake-up per request cost more CPU than the request's record).
    static func wants(verbose: Bool) -> @Sendable (RequestRecord) -> Bool {
        if verbose { return { _ in true } }
        // Sessions seen, per event loop: no lock shared by the loops on every request. A session
        // that two loops see passes twice; `lines(for:)` announces it once.
        let key = PerThreadCache.Key()
        return { record in
            if record.isFaulted || record.status.map({ $0 >= 500 }) == true { return true }
            let seen = PerThreadCache.value(key, make: SeenSessions.init)
            if record.session == seen.last { return false }  // most requests: no hashing
            seen.last = record.session
            if seen.sessions.count > 100_000 { seen.sessions = [] }
            return seen.sessions.insert(record.session).inserted
        }
    }

    private final class SeenSessions: @unchecked Sendable {  // touched only by its own thread
        var sessions = Set<String>()
        /// The session of this thread's previous record, which `sessions` already holds.
        var last: String?
    }

    /// The lines `record` makes (none for an unfaulted request without `verbose`).
    mutating func lines(for record: RequestRecord) -> [String] {
        var lines: [String] = []
        if seen.insert(record.session).inserted {
            if seen.count > 100_000 { seen = [record.session] }  // bounded: an old session may be announced again
            lines.append(line(record, paint("+ session started from \(record.client.split(separator: ":").dropLast().joined(separator: ":"))", .cyan)))
        }
        guard verbose || record.isFaulted || record.status.map({ $0 >= 500 }) == true else { return lines }
        let fields = RecordLine.fields(record)
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
        paint(RecordLine.clock(record.time), .dim) + "  " + RecordLine.pad(record.session, 9) + " " + text
    }

    private enum Colour: String { case red = "31", yellow = "33", cyan = "36", dim = "2" }

    private func paint(_ text: String, _ colour: Colour) -> String {
        self.colour ? "\u{1B}[\(colour.rawValue)m\(text)\u{1B}[0m" : text
    }
}
