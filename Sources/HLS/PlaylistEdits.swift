import Foundation

/// Edits the fault engine needs. Each leaves a valid playlist, rewrites only the lines it
/// must, and recomputes the views.
extension Playlist {
    /// Removes `EXT-X-STREAM-INF` entries (tag and URI line).
    public mutating func removeVariants(where shouldRemove: (Variant) -> Bool) {
        var doomed: [Int] = []
        for (variant, pair) in zip(analysis.variants, analysis.variantLines) where shouldRemove(variant) {
            doomed.append(pair.tag)
            doomed.append(pair.uri)
        }
        guard !doomed.isEmpty else { return }
        removeRawLines(doomed)
        reanalyze()
    }

    /// Removes `EXT-X-MEDIA` entries. Variants that pointed at a group left without any
    /// rendition lose that group attribute (AUDIO, VIDEO, SUBTITLES, CLOSED-CAPTIONS), as the
    /// spec requires every group a variant names to exist.
    public mutating func removeRenditions(where shouldRemove: (Rendition) -> Bool) {
        var doomed: [Int] = []
        for (rendition, line) in zip(analysis.renditions, analysis.renditionLines) where shouldRemove(rendition) {
            doomed.append(line)
        }
        guard !doomed.isEmpty else { return }
        removeRawLines(doomed)
        reanalyze()
        var remainingGroups: Set<String> = []
        for rendition in analysis.renditions { remainingGroups.insert(rendition.type + "\u{0}" + rendition.groupID) }
        let groupAttributes = [("AUDIO", "AUDIO"), ("VIDEO", "VIDEO"), ("SUBTITLES", "SUBTITLES"),
                               ("CLOSED-CAPTIONS", "CLOSED-CAPTIONS")]
        var changed = false
        for (variant, pair) in zip(analysis.variants, analysis.variantLines) {
            var dangling: [String] = []
            for (attribute, type) in groupAttributes {
                guard let group = variant.attributes[attribute], group != "NONE" else { continue }
                if !remainingGroups.contains(type + "\u{0}" + group) { dangling.append(attribute) }
            }
            if !dangling.isEmpty {
                removeAttributes(dangling, fromLine: pair.tag)
                changed = true
            }
        }
        for (iFrame, line) in zip(analysis.iFrameVariants, analysis.iFrameLines) {
            if let group = iFrame.attributes["VIDEO"], !remainingGroups.contains("VIDEO\u{0}" + group) {
                removeAttributes(["VIDEO"], fromLine: line)
                changed = true
            }
        }
        if changed { reanalyze() }
    }

    /// Removes `EXT-X-I-FRAME-STREAM-INF` entries.
    public mutating func removeIFrameVariants(where shouldRemove: (IFrameVariant) -> Bool) {
        var doomed: [Int] = []
        for (variant, line) in zip(analysis.iFrameVariants, analysis.iFrameLines) where shouldRemove(variant) {
            doomed.append(line)
        }
        guard !doomed.isEmpty else { return }
        removeRawLines(doomed)
        reanalyze()
    }

    /// Adds a tag line (for example `#EXT-X-GAP`) right before the URI line of each matching
    /// segment. Segments that already carry a tag with the same name and value are left alone.
    public mutating func addTag(_ line: String, toSegmentsWhere shouldAdd: (Segment) -> Bool) {
        let text = Self.singleLine(line)
        var targets: [Int] = []
        for (segment, span) in zip(segments, analysis.segmentSpans) where shouldAdd(segment) {
            let alreadyThere = (span.firstLine..<span.uriLine).contains { self.line($0) == text }
            if !alreadyThere { targets.append(span.uriLine) }
        }
        guard !targets.isEmpty else { return }
        for uriLine in targets.reversed() { insertRawLines([text], before: uriLine) }
        reanalyze()
    }

    /// Removes tags named `name` (`#EXT-X-GAP` or `EXT-X-GAP`) from the lines of each matching segment.
    public mutating func removeTag(named name: String, fromSegmentsWhere shouldRemove: (Segment) -> Bool) {
        let wanted = Self.normalizedTagName(name)
        var doomed: [Int] = []
        for (segment, span) in zip(segments, analysis.segmentSpans) where shouldRemove(segment) {
            for index in span.firstLine..<span.uriLine where tagName(ofLine: index) == wanted { doomed.append(index) }
        }
        guard !doomed.isEmpty else { return }
        removeRawLines(doomed)
        reanalyze()
    }

    /// Removes segments: their URI line and the tags that describe only them (EXTINF,
    /// BYTERANGE, DISCONTINUITY, PROGRAM-DATE-TIME, GAP, PART). Tags with lasting effect
    /// (KEY, MAP, BITRATE, DATERANGE) and unknown tags stay. The segment after a removed run
    /// keeps its meaning: a removed discontinuity moves to it, and its extrapolated date and
    /// implicit byte-range offset are written out. Header values are not changed; see
    /// `removeLeadingSegments(_:)` for sliding a live window.
    public mutating func removeSegments(where shouldRemove: (Segment) -> Bool) {
        let segments = self.segments
        let spans = analysis.segmentSpans
        var doomed: [Int] = []
        var fixes: [(uriLine: Int, span: SegmentSpan, segment: Segment, discontinuity: Bool)] = []
        var removedDiscontinuity = false
        var removedAny = false
        for (segment, span) in zip(segments, spans) {
            if shouldRemove(segment) {
                removedAny = true
                if segment.discontinuity { removedDiscontinuity = true }
                for index in span.firstLine..<span.uriLine where tag(ofLine: index)?.belongsToSingleSegment == true {
                    doomed.append(index)
                }
                doomed.append(span.uriLine)
            } else if removedAny {
                fixes.append((span.uriLine, span, segment, removedDiscontinuity && !segment.discontinuity))
                removedAny = false
                removedDiscontinuity = false
            }
        }
        guard !doomed.isEmpty else { return }
        // Fix-ups first (they only replace or insert before URI lines of kept segments),
        // from the bottom up so that the indices stay valid.
        let doomedSet = Set(doomed)
        var insertions: [(before: Int, lines: [String])] = []
        for fix in fixes {
            var added: [String] = []
            if fix.discontinuity { added.append("#EXT-X-DISCONTINUITY") }
            var hasDate = false
            var byteRangeLine: Int?
            for index in fix.span.firstLine..<fix.span.uriLine where !doomedSet.contains(index) {
                switch tag(ofLine: index) {
                case .programDateTime: hasDate = true
                case .byteRange: byteRangeLine = index
                default: break
                }
            }
            if !hasDate, let date = fix.segment.programDateTime {
                added.append("#EXT-X-PROGRAM-DATE-TIME:" + ProgramDateTime.format(date))
            }
            if let range = fix.segment.byteRange, let index = byteRangeLine,
               let text = line(index), !text.contains("@") {
                replaceLine(index, with: Array("#EXT-X-BYTERANGE:\(range.length)@\(range.offset)".utf8))
            }
            if !added.isEmpty { insertions.append((fix.uriLine, added)) }
        }
        // Remove, then insert at shifted positions.
        let sortedDoomed = doomed.sorted()
        removeRawLines(doomed)
        for insertion in insertions.reversed() {
            let shift = sortedDoomed.prefix(while: { $0 < insertion.before }).count
            let uriLine = insertion.before - shift
            insertRawLines(insertion.lines, before: uriLine)
        }
        reanalyze()
    }

    /// Slides a live window: removes the first `count` segments and advances
    /// `EXT-X-MEDIA-SEQUENCE` and `EXT-X-DISCONTINUITY-SEQUENCE` so that the remaining
    /// segments keep their MSN and discontinuity sequence.
    public mutating func removeLeadingSegments(_ count: Int) {
        let segments = self.segments
        guard count > 0, !segments.isEmpty else { return }
        let removed = min(count, segments.count)
        let newMediaSequence = ValueParsing.add(analysis.mediaSequence, removed)
        var newDiscontinuitySequence = analysis.discontinuitySequence
        if removed < segments.count {
            let first = segments[removed]
            newDiscontinuitySequence = first.discontinuitySequence - (first.discontinuity ? 1 : 0)
        } else {
            newDiscontinuitySequence = ValueParsing.add(newDiscontinuitySequence, segments.filter(\.discontinuity).count)
        }
        let cutoff = segments[removed - 1].index
        removeSegments(where: { $0.index <= cutoff })
        // A discontinuity moved onto the new first segment is already counted in the sequence.
        if removed < segments.count, let first = self.segments.first, first.discontinuity,
           !segments[removed].discontinuity {
            removeTag(named: "#EXT-X-DISCONTINUITY", fromSegmentsWhere: { $0.index == first.index })
        }
        setHeaderTag("#EXT-X-MEDIA-SEQUENCE", value: String(newMediaSequence))
        if newDiscontinuitySequence != 0 || analysis.firstLine[.discontinuitySequence] != nil {
            setHeaderTag("#EXT-X-DISCONTINUITY-SEQUENCE", value: String(newDiscontinuitySequence))
        }
    }

    /// Sets a header tag such as `("#EXT-X-MEDIA-SEQUENCE", "12")`. An empty value writes the
    /// bare tag (`#EXT-X-INDEPENDENT-SEGMENTS`); nil removes every occurrence. A missing tag
    /// is added after `#EXTM3U` and `#EXT-X-VERSION`.
    public mutating func setHeaderTag(_ name: String, value: String?) {
        let name = Self.normalizedTagName(name)
        let occurrences = lines.indices.filter { tagName(ofLine: $0) == name }
        guard let value else {
            guard !occurrences.isEmpty else { return }
            removeRawLines(occurrences)
            reanalyze()
            return
        }
        let text = Self.singleLine(value.isEmpty ? name : name + ":" + value)
        if let first = occurrences.first {
            if line(first) != text { replaceLine(first, with: Array(text.utf8)) }
            if occurrences.count > 1 { removeRawLines(occurrences.dropFirst()) }
        } else {
            var position = analysis.headerLine + 1
            if let versionLine = analysis.firstLine[.version], versionLine >= position { position = versionLine + 1 }
            insertRawLines([text], before: position)
        }
        reanalyze()
    }

    /// Adds `#EXT-X-ENDLIST` at the end of a media playlist, or removes every occurrence.
    /// A multivariant playlist is left alone: the tag does not belong there.
    public mutating func setEndList(_ present: Bool) {
        if present {
            guard !analysis.endList, analysis.kind == .media else { return }
            insertRawLines(["#EXT-X-ENDLIST"], before: lines.count)
        } else {
            let occurrences = lines.indices.filter { tag(ofLine: $0) == .endList }
            guard !occurrences.isEmpty else { return }
            removeRawLines(occurrences)
        }
        reanalyze()
    }

    /// Raw escape hatch (malformed-playlist faults): inserts lines as given after the line
    /// with 0-based index `index`; a negative index inserts at the top, an index past the
    /// end appends. Line breaks inside a string are percent-encoded.
    public mutating func insertLines(_ newLines: [String], afterLine index: Int) {
        insertRawLines(newLines, before: index < 0 ? 0 : index + 1)
        reanalyze()
    }

    /// Raw escape hatch: replaces the text of the line with 0-based index `index`.
    public mutating func replaceLine(_ index: Int, with text: String) {
        guard lines.indices.contains(index) else { return }
        replaceLine(index, with: Array(Self.singleLine(text).utf8))
        reanalyze()
    }

    /// Removes attributes (and one adjoining comma) from a tag line, keeping the rest of its bytes.
    mutating func removeAttributes(_ names: [String], fromLine index: Int) {
        let record = lines[index]
        let content = storage[record.start..<record.end]
        guard let colon = content.firstIndex(of: 0x3A) else { return }
        let list = storage.withUnsafeBufferPointer { buffer in
            AttributeParser.parse(buffer, from: colon + 1, to: record.end,
                                  substitute: { String(decoding: buffer[$0..<$1], as: UTF8.self) },
                                  problem: { _ in })
        }
        var cuts: [Range<Int>] = []
        for attribute in list.items where names.contains(attribute.name) {
            var end = attribute.valueEnd
            if attribute.quoted && end < record.end && storage[end] == 0x22 { end += 1 }
            var start = attribute.nameStart
            if end < record.end && storage[end] == 0x2C {
                end += 1
            } else if start > colon + 1, let comma = storage[(colon + 1)..<start].lastIndex(of: 0x2C) {
                start = comma
            }
            cuts.append(start..<end)
        }
        guard !cuts.isEmpty else { return }
        var output: [UInt8] = []
        var position = record.start
        for cut in cuts.sorted(by: { $0.lowerBound < $1.lowerBound }) where cut.lowerBound >= position {
            output.append(contentsOf: storage[position..<cut.lowerBound])
            position = cut.upperBound
        }
        output.append(contentsOf: storage[position..<record.end])
        replaceLine(index, with: output)
    }

    /// Replaces the value of a quoted attribute in a tag line, keeping the rest of its bytes.
    mutating func replaceAttributeValue(_ name: String, with value: String, inLine index: Int) {
        let record = lines[index]
        guard let colon = storage[record.start..<record.end].firstIndex(of: 0x3A) else { return }
        let list = storage.withUnsafeBufferPointer { buffer in
            AttributeParser.parse(buffer, from: colon + 1, to: record.end,
                                  substitute: { String(decoding: buffer[$0..<$1], as: UTF8.self) },
                                  problem: { _ in })
        }
        guard let attribute = list.attribute(name) else { return }
        var output = Array(storage[record.start..<attribute.valueStart])
        output.append(contentsOf: value.utf8)
        output.append(contentsOf: storage[attribute.valueEnd..<record.end])
        replaceLine(index, with: output)
    }
}
