/// Low-level line operations shared by the edits. Every operation keeps untouched lines'
/// bytes and line endings as they are.
extension Playlist {
    /// The line ending used for new lines: the first line's, or LF.
    var preferredTerminator: LineTerminator {
        for line in lines where line.terminator != .none { return line.terminator }
        return .lf
    }

    /// The tag name of a line (`#EXT-X-GAP`), or nil when the line is not a tag.
    func tagName(ofLine index: Int) -> String? {
        guard let text = line(index) else { return nil }
        let trimmed = text.drop(while: { $0 == " " || $0 == "\t" })
        guard trimmed.hasPrefix("#EXT") else { return nil }
        return String(trimmed.prefix(while: { $0 != ":" })).trimmingTrailingWhitespace()
    }

    func tag(ofLine index: Int) -> TagName? {
        guard let name = tagName(ofLine: index) else { return nil }
        return TagName(rawValue: name)
    }

    /// Replaces the content of a line; its line ending stays.
    mutating func replaceLine(_ index: Int, with content: some Collection<UInt8>) {
        compact = false
        let start = storage.count
        storage.append(contentsOf: content)
        lines[index].start = start
        lines[index].end = storage.count
    }

    /// Inserts new lines before line `index` (`index == lines.count` appends). A last line
    /// without a line ending stays the last line without one.
    mutating func insertRawLines(_ texts: [String], before index: Int) {
        guard !texts.isEmpty else { return }
        compact = false
        let terminator = preferredTerminator
        var records: [LineRecord] = []
        for text in texts {
            let start = storage.count
            storage.append(contentsOf: Self.singleLine(text).utf8)
            records.append(LineRecord(start: start, end: storage.count, terminator: terminator))
        }
        let position = max(0, min(index, lines.count))
        if position == lines.count, let last = lines.indices.last, lines[last].terminator == .none {
            lines[last].terminator = terminator
            records[records.count - 1].terminator = .none
        }
        lines.insert(contentsOf: records, at: position)
    }

    /// Removes lines by index. If the last line had no line ending, the new last line loses its.
    mutating func removeRawLines(_ indices: some Sequence<Int>) {
        let doomed = Set(indices)
        guard !doomed.isEmpty else { return }
        compact = false
        let lastHadNoTerminator = lines.last?.terminator == LineTerminator.none
        var kept: [LineRecord] = []
        kept.reserveCapacity(lines.count)
        for (index, line) in lines.enumerated() where !doomed.contains(index) { kept.append(line) }
        if lastHadNoTerminator && !kept.isEmpty { kept[kept.count - 1].terminator = .none }
        lines = kept
    }

    /// Line breaks inside an inserted "line" would create lines the caller did not ask for.
    static func singleLine(_ text: String) -> String {
        guard text.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) else { return text }
        return text.replacingOccurrences(of: "\r", with: "%0D").replacingOccurrences(of: "\n", with: "%0A")
    }

    static func normalizedTagName(_ name: String) -> String {
        name.hasPrefix("#") ? name : "#" + name
    }
}

extension String {
    func trimmingTrailingWhitespace() -> String {
        var result = Substring(self)
        while let last = result.last, last == " " || last == "\t" || last == "\r" { result = result.dropLast() }
        return String(result)
    }
}
