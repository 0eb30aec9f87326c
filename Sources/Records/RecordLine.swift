import Foundation

/// The one-line text form of a record, shared by the terminal view of a running proxy and the
/// evidence a verdict prints:
///
///     14:45:09.480  seg v2 n42    503       0 B    1 ms  status 503  status-503/seg-503
public enum RecordLine {
    /// The fields after the time: resource, status, bytes, duration, ending, actions, rules, upstream error.
    public static func fields(_ record: RequestRecord) -> [String] {
        var fields = [
            pad(resource(record), 14),
            pad(record.status.map(String.init) ?? "---", 4),
            pad(bytes(record.bytesSent), 9, right: true),
            pad(milliseconds(record.duration), 8, right: true),
        ]
        if record.ending != .complete { fields.append(record.ending.rawValue) }
        if record.isFaulted {
            fields.append(record.actions.map(\.words).joined(separator: ", "))
            fields.append(record.matchedRules.joined(separator: ","))
        }
        if let error = record.upstream?.error { fields.append("upstream: \(error)") }
        if let link = record.link, let words = linkWords(link) { fields.append(words) }
        return fields
    }

    /// "link: latency 0.5 s, waited 1.2 s, stalled 3.0 s", the parts over 50 ms; nil when none is.
    static func linkWords(_ link: RequestRecord.LinkTimes) -> String? {
        let parts = [("latency", link.latency), ("waited", link.waited), ("stalled", link.stalled)]
            .filter { $0.1 >= 0.05 }.map { "\($0.0) \(String(format: "%.1f", $0.1)) s" }
        return parts.isEmpty ? nil : "link: " + parts.joined(separator: ", ")
    }

    /// Time and fields, uncoloured, prefixed with the record's id.
    public static func plain(_ record: RequestRecord) -> String {
        "#\(record.id)  \(clock(record.time))  " + fields(record).joined(separator: "  ")
    }

    /// "seg v2 n42", "media v1", "key v0 n3 b" (b: the backup copy), "seg v4 n42 @cdn-b" (a
    /// content-steering pathway); the path when unclassified.
    public static func resource(_ record: RequestRecord) -> String {
        guard let kind = record.kind else { return record.path.count > 14 ? String(record.path.prefix(13)) + "…" : record.path }
        var text = switch kind {
        case .segment: "seg"
        case .sessionData: "data"
        default: kind.rawValue
        }
        if let variant = record.variant { text += " v\(variant)" }
        if let rendition = record.rendition { text += " r\(rendition)" }
        if let msn = record.msn { text += " n\(msn)" }
        if let part = record.part { text += " p\(part)" }
        if record.copy == "backup" { text += " b" }
        if let pathway = record.pathway { text += " @\(pathway)" }
        return text
    }

    public static func bytes(_ count: Int) -> String {
        switch count {
        case ..<1024: "\(count) B"
        case ..<(1024 * 1024): String(format: "%.1f KB", Double(count) / 1024)
        case ..<(1024 * 1024 * 1024): String(format: "%.1f MB", Double(count) / 1_048_576)
        default: String(format: "%.1f GB", Double(count) / 1_073_741_824)
        }
    }

    public static func milliseconds(_ seconds: Double) -> String {
        seconds < 10 ? "\(Int((seconds * 1000).rounded())) ms" : String(format: "%.1f s", seconds)
    }

    /// "14:45:09.480" in local time.
    public static func clock(_ date: Date) -> String {
        var components = Calendar(identifier: .gregorian).dateComponents(in: .current, from: date)
        components.nanosecond = components.nanosecond ?? 0
        return String(format: "%02d:%02d:%02d.%03d", components.hour ?? 0, components.minute ?? 0, components.second ?? 0, (components.nanosecond ?? 0) / 1_000_000)
    }

    public static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        guard text.count < width else { return text }
        let space = String(repeating: " ", count: width - text.count)
        return right ? space + text : text + space
    }
}
