import Foundation
import HLS

extension BundleSummary {
    /// Rows of failures `text` lists before it says how many more there are (`json` lists them all).
    public static let failuresShown = 40

    /// The readable `inspect` summary. URLs under the entry's directory are shown relative to it.
    public func text() -> String {
        var out: [String] = []
        let isArchive = !FileManager.default.isDirectory(location)
        out += Self.pairs([
            ("Bundle", "\(location) (\(isArchive ? "archive" : "directory"), format version \(formatVersion))"),
            ("Source", source + (entry.map { " of \($0)" } ?? "")),
            ("Started", Self.iso8601(started)),
            ("Duration", Self.clock(duration)),
            ("Stopped", stoppedText),
            ("Contents", contentsText),
            ("Kinds", kinds.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
                .map { "\($0.key) \($0.value)" }.joined(separator: ", ")),
        ])
        if !variants.isEmpty {
            out.append("")
            out.append("Variants (from the recorded master)")
            out += TextTable.lines(["#", "BANDWIDTH", "RESOLUTION", "CODECS", "SEGMENTS", "URI"], variants.map {
                [String($0.index), String($0.bandwidth), $0.resolution ?? "-", $0.codecs ?? "-", String($0.segmentsRecorded), short($0.url)]
            })
        }
        if !playlists.isEmpty {
            out.append("")
            out.append("Playlists")
            out += TextTable.lines(["PLAYLIST", "ROLE", "LOADS", "VERSIONS", "MSN", "SEGMENTS", "RELOAD", "FAILED"], playlists.map { row in
                let msn: String
                switch (row.firstMSN, row.lastMSN) {
                case let (first?, last?): msn = first == last ? "\(first)" : "\(first)–\(last)"
                default: msn = "-"
                }
                let segments = row.segmentsListed == 0 ? "-" : "\(row.segmentsRecorded)/\(row.segmentsListed)"
                var reload = row.medianReload.map { String(format: "%.1f s", $0) } ?? "-"
                if row.ended && row.loads > 0 { reload = row.medianReload == nil ? "ended" : reload + ", ended" }
                return [short(row.url), row.role ?? "-", String(row.loads), String(row.versions), msn, segments, reload, String(row.failures)]
            })
        }
        out.append("")
        if failures.isEmpty {
            out.append("No failures.")
        } else {
            out.append("Failures (\(failures.count))")
            // A run of the same failure (a playlist answering 404 at every reload) is one row.
            var runs: [(first: FailureRow, last: FailureRow, what: String, count: Int)] = []
            for failure in failures {
                let what = Self.what(failure)
                if let last = runs.last, last.first.url == failure.url, last.first.kind == failure.kind, last.what == what {
                    runs[runs.count - 1].last = failure
                    runs[runs.count - 1].count += 1
                } else {
                    runs.append((failure, failure, what, 1))
                }
            }
            out += TextTable.lines(["AT", "KIND", "URL", "WHAT"], runs.prefix(Self.failuresShown).map { run in
                let at = run.count == 1 ? "+" + Self.clock(run.first.at) : "+\(Self.clock(run.first.at)) … +\(Self.clock(run.last.at))"
                return [at, run.first.kind ?? "-", short(run.first.url), run.count == 1 ? run.what : "\(run.what) ×\(run.count)"]
            })
            if runs.count > Self.failuresShown {
                out.append("… and \(runs.count - Self.failuresShown) more rows (--json lists every failure)")
            }
        }
        return out.joined(separator: "\n") + "\n"
    }

    /// "HTTP 503", "timeout: upstream timed out…", "HTTP 200, truncated: …".
    private static func what(_ failure: FailureRow) -> String {
        var what = failure.status.map { "HTTP \($0)" } ?? ""
        if failure.ending != "complete" {
            let reason = failure.error.map { "\(failure.ending): \($0)" } ?? failure.ending
            what = what.isEmpty ? reason : "\(what), \(reason)"
        }
        return what
    }

    private var stoppedText: String {
        if let stopReason { return stopReason }
        guard let ended else { return "not finished: no end was written (the recording was killed, or is still running)" }
        return "as planned, at \(Self.iso8601(ended))"
    }

    private var contentsText: String {
        var text = "\(exchanges) exchange\(exchanges == 1 ? "" : "s") (\(failures.count) failed), "
        text += "\(bodies) distinct bod\(bodies == 1 ? "y" : "ies"), \(ByteSize.text(bodyBytes))"
        if redacted { text += "; redacted" }
        return text
    }

    /// `url` relative to the entry's directory when it is under it, its path alone when it is on
    /// the entry's host, whole otherwise.
    func short(_ url: String) -> String {
        guard let entry, let slash = entry.range(of: "/", options: .backwards, range: Self.pathStart(entry)..<entry.endIndex) else {
            return url
        }
        let directory = entry[..<slash.upperBound]
        if url.hasPrefix(directory), url.count > directory.count { return String(url.dropFirst(directory.count)) }
        let origin = entry[..<Self.pathStart(entry)]
        if url.hasPrefix(origin + "/") { return String(url.dropFirst(origin.count)) }
        return url
    }

    /// Where the path of an absolute URL starts (after `scheme://authority`).
    private static func pathStart(_ url: String) -> String.Index {
        guard let scheme = url.range(of: "://") else { return url.startIndex }
        return url[scheme.upperBound...].firstIndex(of: "/") ?? url.endIndex
    }

    /// "0:42.3", "12:03.0", "1:02:03.0"; seconds under a minute as "42.31 s".
    static func clock(_ seconds: Double) -> String {
        guard seconds.isFinite, abs(seconds) < 1e9 else { return "\(seconds) s" }  // a damaged bundle's times
        if seconds < 60 { return String(format: "%.2f s", seconds) }
        let tenths = Int((seconds * 10).rounded())
        let hours = tenths / 36_000, minutes = tenths / 600 % 60, rest = Double(tenths % 600) / 10
        return hours > 0 ? String(format: "%d:%02d:%04.1f", hours, minutes, rest) : String(format: "%d:%04.1f", minutes, rest)
    }

    private static func pairs(_ rows: [(String, String)]) -> [String] {
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.1 }
    }
}

fileprivate extension FileManager {
    func isDirectory(_ path: String) -> Bool {
        var directory: ObjCBool = false
        return fileExists(atPath: path, isDirectory: &directory) && directory.boolValue
    }
}
