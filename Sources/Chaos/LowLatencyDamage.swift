/// LL-HLS damage to a served media playlist (`"lowLatency": "<damage>"`), each a way real LL
/// servers have broken rfc8216bis. Applied to the final text like `malform`; a playlist without
/// what a damage changes (no parts, no EXT-X-SKIP, no rendition reports) passes unchanged.
public enum LowLatencyDamage: String, Sendable, Equatable, CaseIterable {
    /// `PART-HOLD-BACK` equal to the part target: below the twice-the-part-target the server
    /// MUST give (§4.4.3.8), so a player that obeys it sits too close to the edge.
    case partHoldBackShort = "part-hold-back-short"
    /// A delta update (`EXT-X-SKIP`) skips every complete segment but the last, younger ones
    /// than CAN-SKIP-UNTIL allows (§4.4.5.2, §6.2.5.1): the client may not hold them.
    case skipTooMany = "skip-too-many"
    /// A full playlist answered as a delta update (`EXT-X-SKIP` for all but the last four
    /// complete segments) to a client that did not ask for one (§6.2.5.1).
    case skipUnasked = "skip-unasked"
    /// Every `EXT-X-RENDITION-REPORT` names an MSN two segments behind (§4.4.5.4): a player
    /// switching rendition asks the new one for what it already has.
    case renditionReportsBehind = "rendition-reports-behind"
    /// The parts of the segment in progress are left out (removed before their segment is
    /// complete, §6.2.2), while the preload hint stays.
    case partsDropped = "parts-dropped"
    /// The preload hint names a resource that is never published (`never-` before its last
    /// path component): the origin answers it 404 (§4.4.5.3, §6.2.6).
    case hintNeverPublished = "hint-never-published"
    /// The last listed part gets `GAP=YES`: it is not available (§4.4.4.9).
    case partGap = "part-gap"

    public func apply(to bytes: [UInt8]) -> [UInt8] {
        var lines = PlaylistDamage.split(bytes)
        switch self {
        case .partHoldBackShort:
            guard let target = lines.lazy.compactMap({ Self.attribute("PART-TARGET", of: $0.text, tag: "#EXT-X-PART-INF:") }).first,
                  let index = lines.firstIndex(where: { $0.text.hasPrefix("#EXT-X-SERVER-CONTROL:") }) else { break }
            lines[index].text = Self.setting("PART-HOLD-BACK", to: target, in: lines[index].text)
        case .skipTooMany:
            guard let skip = lines.firstIndex(where: { $0.text.hasPrefix("#EXT-X-SKIP:") }),
                  let skipped = Self.attribute("SKIPPED-SEGMENTS", of: lines[skip].text, tag: "#EXT-X-SKIP:").flatMap(Int.init) else { break }
            let groups = Self.segmentGroups(lines, from: skip + 1)
            guard groups.count > 1 else { break }
            let doomed = groups.dropLast()
            lines.removeSubrange(doomed.first!.lowerBound..<doomed.last!.upperBound)
            lines[skip].text = Self.setting("SKIPPED-SEGMENTS", to: String(skipped + doomed.count), in: lines[skip].text)
        case .skipUnasked:
            guard !lines.contains(where: { $0.text.hasPrefix("#EXT-X-SKIP:") }),
                  lines.contains(where: { $0.text.hasPrefix("#EXT-X-SERVER-CONTROL:") && $0.text.contains("CAN-SKIP-UNTIL=") }),
                  let first = lines.firstIndex(where: Self.startsSegment) else { break }
            let groups = Self.segmentGroups(lines, from: first)
            guard groups.count > 4 else { break }
            let doomed = groups.dropLast(4)
            let ending = lines[first].ending
            lines.replaceSubrange(doomed.first!.lowerBound..<doomed.last!.upperBound,
                                  with: [PlaylistDamage.Line(text: "#EXT-X-SKIP:SKIPPED-SEGMENTS=\(doomed.count)", ending: ending)])
        case .renditionReportsBehind:
            for index in lines.indices where lines[index].text.hasPrefix("#EXT-X-RENDITION-REPORT:") {
                guard let msn = Self.attribute("LAST-MSN", of: lines[index].text, tag: "#EXT-X-RENDITION-REPORT:").flatMap(Int.init) else { continue }
                lines[index].text = Self.setting("LAST-MSN", to: String(max(0, msn - 2)), in: lines[index].text)
            }
        case .partsDropped:
            let lastURI = lines.lastIndex { Self.isURILine($0.text) } ?? -1
            lines = lines.enumerated().filter { $0.offset <= lastURI || !$0.element.text.hasPrefix("#EXT-X-PART:") }.map(\.element)
        case .hintNeverPublished:
            for index in lines.indices where lines[index].text.hasPrefix("#EXT-X-PRELOAD-HINT:") {
                lines[index].text = Self.renamingURI(in: lines[index].text)
            }
        case .partGap:
            if let index = lines.lastIndex(where: { $0.text.hasPrefix("#EXT-X-PART:") }), !lines[index].text.contains("GAP=YES") {
                lines[index].text += ",GAP=YES"
            }
        }
        return PlaylistDamage.join(lines)
    }

    static func isURILine(_ text: String) -> Bool {
        !text.isEmpty && !text.hasPrefix("#") && !text.allSatisfy(\.isWhitespace)
    }

    /// The first line of a media segment: a tag that belongs to one segment, or its URI.
    static func startsSegment(_ line: PlaylistDamage.Line) -> Bool {
        ["#EXTINF:", "#EXT-X-PART:", "#EXT-X-PROGRAM-DATE-TIME:", "#EXT-X-DISCONTINUITY", "#EXT-X-GAP", "#EXT-X-BYTERANGE:"]
            .contains { line.text.hasPrefix($0) } || isURILine(line.text)
    }

    /// The line ranges of the complete segments from `start` on: each ends with its URI line.
    static func segmentGroups(_ lines: [PlaylistDamage.Line], from start: Int) -> [Range<Int>] {
        var groups: [Range<Int>] = []
        var groupStart = start
        for index in start..<lines.count where isURILine(lines[index].text) {
            groups.append(groupStart..<(index + 1))
            groupStart = index + 1
        }
        return groups
    }

    /// The value of `name` in the attribute list of `text` when it is the tag `tag`.
    static func attribute(_ name: String, of text: String, tag: String) -> String? {
        guard text.hasPrefix(tag) else { return nil }
        for part in text.dropFirst(tag.count).split(separator: ",") where part.hasPrefix(name + "=") {
            return String(part.dropFirst(name.count + 1))
        }
        return nil
    }

    /// `text` with attribute `name` set to `value` (added at the end when absent). Values here
    /// are numbers: no quoted commas to mind.
    static func setting(_ name: String, to value: String, in text: String) -> String {
        guard let colon = text.firstIndex(of: ":") else { return text }
        var parts = text[text.index(after: colon)...].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        if let index = parts.firstIndex(where: { $0.hasPrefix(name + "=") }) {
            parts[index] = "\(name)=\(value)"
        } else {
            parts.append("\(name)=\(value)")
        }
        return String(text[...colon]) + parts.joined(separator: ",")
    }

    /// The tag with `never-` put before the last path component of its URI attribute.
    static func renamingURI(in text: String) -> String {
        guard let start = text.range(of: "URI=\""), let end = text[start.upperBound...].firstIndex(of: "\"") else { return text }
        let uri = text[start.upperBound..<end]
        let pathEnd = uri.firstIndex { $0 == "?" || $0 == "#" } ?? uri.endIndex
        let nameStart = uri[..<pathEnd].lastIndex(of: "/").map { uri.index(after: $0) } ?? uri.startIndex
        return String(text[..<nameStart]) + "never-" + String(text[nameStart...])
    }
}
