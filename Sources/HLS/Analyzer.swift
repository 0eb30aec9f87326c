import Foundation

/// One pass over the lines that computes the typed views, checks the tags and records
/// where every URI sits. In strict mode the first problem throws; otherwise problems
/// become warnings and the pass goes on.
struct Analyzer {
    /// The playlist's storage, borrowed for the duration of `analyze`.
    private let bytes: UnsafeBufferPointer<UInt8>
    private let lines: [LineRecord]
    private let url: URL?
    private let strict: Bool
    private var result = Analysis()
    private var lineIndex = 0
    /// Byte classes of the line being processed.
    private var lineBytes = ByteClasses(nonASCII: true, brace: true, control: true)
    /// Problems found inside helpers (attribute lists, substitution); reported per line.
    private var problems: [(PlaylistErrorKind, String)] = []
    private var importedVariables: Set<String> = []

    // multivariant state
    private var pendingStreamInf: (attributes: AttributeList, line: Int)?
    private var sawMultivariantTag = false
    private var sawMediaTag = false
    private var reportedMixedKinds = false

    // media state
    private struct PendingSegment {
        var duration: Double?
        var title: String?
        var byteRange: (length: Int, offset: Int?)?
        var byteRangeLine = 0
        var discontinuity = false
        var gap = false
        var programDateTime: Date?
        var parts: [Part] = []
    }
    private var pending = PendingSegment()
    private var segmentFirstLine = 0
    private var currentKeyLine = -1
    private var currentMapLine = -1
    private var currentBitrate: Int?
    private var previousRange: (uri: String, end: Int)?
    private var previousPartRange: (uri: String, end: Int)?
    private var nextProgramDateTime: Date?
    private var skippedSegments = 0
    private var discontinuities = 0
    private var elapsed = 0.0

    private init(bytes: UnsafeBufferPointer<UInt8>, lines: [LineRecord], url: URL?, strict: Bool) {
        self.bytes = bytes
        self.lines = lines
        self.url = url
        self.strict = strict
    }

    static func analyze(bytes: [UInt8], lines: [LineRecord], url: URL?, strict: Bool) throws(PlaylistError) -> Analysis {
        let outcome = bytes.withUnsafeBufferPointer { buffer -> Result<Analysis, PlaylistError> in
            var analyzer = Analyzer(bytes: buffer, lines: lines, url: url, strict: strict)
            do throws(PlaylistError) {
                return .success(try analyzer.run())
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    private mutating func run() throws(PlaylistError) -> Analysis {
        // Typical media playlists have two lines per segment; growing these arrays while
        // parsing would copy them several times.
        let estimate = lines.count / 2 + 4
        result.segmentRecords.reserveCapacity(estimate)
        result.segmentSpans.reserveCapacity(estimate)
        result.places.reserveCapacity(estimate)
        try checkHeader()
        var index = result.headerLine + 1
        segmentFirstLine = index
        while index < lines.count {
            lineIndex = index
            try process(lines[index])
            if !problems.isEmpty { try flushProblems() }
            index += 1
        }
        lineIndex = lines.count - 1
        try finish()
        return result
    }

    // MARK: reporting

    private mutating func report(_ kind: PlaylistErrorKind, _ message: String, line: Int? = nil) throws(PlaylistError) {
        let error = PlaylistError(line: (line ?? lineIndex) + 1, kind: kind, message: message)
        if strict { throw error }
        result.warnings.append(error)
    }

    private mutating func flushProblems() throws(PlaylistError) {
        let pendingProblems = problems
        problems.removeAll()
        for (kind, message) in pendingProblems { try report(kind, message) }
    }

    // MARK: header

    private mutating func checkHeader() throws(PlaylistError) {
        var index = 0
        while index < lines.count {
            var (start, end) = trimmed(lines[index])
            if index == 0 && end - start >= 3 && bytes[start] == 0xEF && bytes[start + 1] == 0xBB && bytes[start + 2] == 0xBF {
                if strict {
                    throw PlaylistError(line: 1, kind: .notHLS, message: "byte order mark before #EXTM3U")
                }
                start += 3
            }
            if start == end {
                if strict {
                    throw PlaylistError(line: index + 1, kind: .notHLS, message: "blank line before #EXTM3U")
                }
                index += 1
                continue
            }
            let name = tagNameEnd(start, end)
            if TagName.lookup(UnsafeBufferPointer(rebasing: bytes[start..<name])) == .extm3u && name == end {
                result.headerLine = index
                return
            }
            break
        }
        let line = index < lines.count ? index + 1 : nil
        throw PlaylistError(line: line, kind: .notHLS, message: "not an HLS playlist: the first line must be #EXTM3U")
    }

    // MARK: lines

    private func trimmed(_ line: LineRecord) -> (Int, Int) {
        LineScanner.trimmed(bytes, line.start, line.end)
    }

    private func tagNameEnd(_ start: Int, _ end: Int) -> Int {
        LineScanner.tagNameEnd(bytes, start, end)
    }

    private mutating func process(_ line: LineRecord) throws(PlaylistError) {
        let (start, end) = trimmed(line)
        if start == end { return }
        if start != line.start || end != line.end {
            try report(.misplacedWhitespace, "whitespace at the start or end of the line")
        }
        lineBytes = Self.classify(bytes, line.start, line.end)
        if lineBytes.nonASCII && String(validating: bytes[line.start..<line.end], as: UTF8.self) == nil {
            try report(.invalidEncoding, "line is not valid UTF-8")
        }
        if bytes[start] != 0x23 {
            try handleURILine(start, end)
            return
        }
        guard end - start >= 4, bytes[start + 1] == 0x45, bytes[start + 2] == 0x58, bytes[start + 3] == 0x54 else {
            return  // a comment
        }
        let nameEnd = tagNameEnd(start, end)
        guard let tag = TagName.lookup(UnsafeBufferPointer(rebasing: bytes[start..<nameEnd])) else { return }  // unknown tags pass through
        let valueStart = nameEnd < end ? nameEnd + 1 : end
        try handle(tag, valueStart, end, hasValue: nameEnd < end)
    }

    /// What kinds of bytes a line holds, so that most lines skip the slower checks.
    struct ByteClasses {
        var nonASCII = false
        var brace = false
        var control = false
    }

    /// Reductions without early exit (the compiler vectorises them) plus memchr for `{`.
    private static func classify(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> ByteClasses {
        guard start < end, let base = bytes.baseAddress else { return ByteClasses() }
        var bits: UInt8 = 0
        var lowest: UInt8 = 0xFF
        for position in start..<end {
            let byte = bytes[position]
            bits |= byte | (byte &+ 1)  // the high bit is set by non-ASCII bytes and by DEL (0x7F)
            lowest = min(lowest, byte)
        }
        let highOrDelete = bits & 0x80 != 0
        let delete = highOrDelete && UnsafeBufferPointer(rebasing: bytes[start..<end]).contains(0x7F)
        let brace = memchr(base + start, 0x7B, end - start) != nil
        return ByteClasses(nonASCII: highOrDelete, brace: brace, control: lowest < 0x20 || delete)
    }

    // MARK: text and variables

    /// The text of `bytes[start..<end]` with `{$name}` references substituted.
    private mutating func text(_ start: Int, _ end: Int) -> String {
        if !lineBytes.brace { return String(decoding: bytes[start..<end], as: UTF8.self) }
        var position = start
        var hasReference = false
        while position + 1 < end {
            if bytes[position] == 0x7B && bytes[position + 1] == 0x24 { hasReference = true; break }
            position += 1
        }
        if !hasReference { return String(decoding: bytes[start..<end], as: UTF8.self) }
        return substitute(start, end)
    }

    /// The text of `bytes[start..<end]` when `{$name}` references change it; nil when they do not.
    private mutating func substitutedText(_ start: Int, _ end: Int) -> String? {
        guard lineBytes.brace else { return nil }
        let text = text(start, end)
        return text.utf8.elementsEqual(bytes[start..<end]) ? nil : text
    }

    private mutating func substitute(_ start: Int, _ end: Int) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(end - start)
        var position = start
        while position < end {
            if position + 1 < end && bytes[position] == 0x7B && bytes[position + 1] == 0x24 {
                var close = position + 2
                while close < end && Self.isVariableNameByte(bytes[close]) { close += 1 }
                if close < end && bytes[close] == 0x7D && close > position + 2 {
                    let name = String(decoding: bytes[(position + 2)..<close], as: UTF8.self)
                    if let value = result.definitions[name] {
                        output.append(contentsOf: value.utf8)
                    } else {
                        if importedVariables.contains(name) {
                            problems.append((.undefinedVariable, "variable \(name) is imported from the multivariant playlist, which is not known here"))
                        } else {
                            problems.append((.undefinedVariable, "variable \(name) is not defined by EXT-X-DEFINE"))
                        }
                        output.append(contentsOf: bytes[position...close])
                    }
                    position = close + 1
                    continue
                }
            }
            output.append(bytes[position])
            position += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func isVariableNameByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || byte == 0x2D || byte == 0x5F
    }

    private mutating func attributes(_ tag: TagName, _ start: Int, _ end: Int) -> AttributeList {
        let tagLabel = String(tag.rawValue.dropFirst())
        return AttributeParser.parse(bytes, from: start, to: end,
                                     substitute: { self.text($0, $1) },
                                     problem: { self.problems.append((.malformedAttribute, "\(tagLabel): \($0)")) })
    }

    private mutating func required(_ list: AttributeList, _ name: String, _ tag: TagName) -> String? {
        if let value = list[name] { return value }
        problems.append((.missingAttribute, "\(tag.rawValue.dropFirst()): missing required attribute \(name)"))
        return nil
    }

    private mutating func integerAttribute(_ list: AttributeList, _ name: String, _ tag: TagName) -> Int? {
        guard let raw = list[name] else { return nil }
        if let value = ValueParsing.integer(raw) { return value }
        problems.append((.invalidValue, "\(tag.rawValue.dropFirst()): \(name) is not a decimal integer: \(raw)"))
        return nil
    }

    private mutating func decimalAttribute(_ list: AttributeList, _ name: String, _ tag: TagName) -> Double? {
        guard let raw = list[name] else { return nil }
        if let value = ValueParsing.decimal(raw) { return value }
        problems.append((.invalidValue, "\(tag.rawValue.dropFirst()): \(name) is not a decimal number: \(raw)"))
        return nil
    }

    private mutating func addPlace(_ attribute: Attribute?, _ kind: URIKind, msn: Int? = nil, variantIndex: Int? = nil,
                          renditionIndex: Int? = nil, partIndex: Int? = nil, owner: Int? = nil) {
        guard let attribute else { return }
        result.places.append(URIPlace(lineIndex: lineIndex, start: attribute.valueStart, end: attribute.valueEnd,
                                      storedText: attribute.value, kind: kind, variantIndex: variantIndex,
                                      renditionIndex: renditionIndex, msn: msn, partIndex: partIndex, owner: owner))
    }

    private var nextMSN: Int { ValueParsing.add(ValueParsing.add(result.mediaSequence, skippedSegments), result.segmentRecords.count) }

    // MARK: tags

    private mutating func noteKind(_ tag: TagName) throws(PlaylistError) {
        if tag.isMultivariantTag { sawMultivariantTag = true }
        if tag.isMediaTag { sawMediaTag = true }
        if sawMultivariantTag && sawMediaTag && !reportedMixedKinds {
            reportedMixedKinds = true
            try report(.mixedPlaylistKinds, "\(tag.rawValue.dropFirst()): media playlist and multivariant playlist tags are mixed")
        }
    }

    private mutating func noteHeaderTag(_ tag: TagName) throws(PlaylistError) {
        if result.firstLine[tag] != nil {
            try report(.duplicateTag, "\(tag.rawValue.dropFirst()) appears more than once")
        } else {
            result.firstLine[tag] = lineIndex
        }
        if !result.segmentRecords.isEmpty || pending.duration != nil {
            try report(.unexpectedTag, "\(tag.rawValue.dropFirst()) must appear before the first media segment")
        }
    }

    private mutating func handle(_ tag: TagName, _ start: Int, _ end: Int, hasValue: Bool) throws(PlaylistError) {
        try noteKind(tag)
        if try handlePlaylistTag(tag, start, end, hasValue: hasValue) { return }
        if try handleSegmentTag(tag, start, end, hasValue: hasValue) { return }
        _ = try handleMultivariantTag(tag, start, end, hasValue: hasValue)
    }

    /// Tags about the whole playlist (rfc8216bis 4.4.2, 4.4.3); false for any other tag.
    private mutating func handlePlaylistTag(_ tag: TagName, _ start: Int, _ end: Int, hasValue: Bool) throws(PlaylistError) -> Bool {
        switch tag {
        case .extm3u:
            try report(.duplicateTag, "EXTM3U appears more than once")
        case .version:
            if result.firstLine[tag] != nil { try report(.duplicateTag, "EXT-X-VERSION appears more than once") }
            result.firstLine[tag] = lineIndex
            if let version = ValueParsing.integer(bytes, start, end) {
                result.version = version
            } else {
                try report(.invalidValue, "EXT-X-VERSION: not a decimal integer")
            }
        case .independentSegments:
            result.independentSegments = true
            if result.firstLine[tag] == nil { result.firstLine[tag] = lineIndex }
        case .start:
            let list = attributes(tag, start, end)
            _ = required(list, "TIME-OFFSET", tag)
        case .allowCache:
            break
        case .define:
            try handleDefine(start, end)
        case .targetDuration:
            try noteHeaderTag(tag)
            if let value = ValueParsing.integer(bytes, start, end) {
                result.targetDuration = value
            } else if let value = ValueParsing.decimal(bytes, start, end), value >= 0,
                      let rounded = ValueParsing.int(exactly: value.rounded()) {
                result.targetDuration = rounded
                try report(.invalidValue, "EXT-X-TARGETDURATION must be a decimal integer, found \(text(start, end))")
            } else {
                try report(.invalidValue, "EXT-X-TARGETDURATION: not a decimal integer: \(text(start, end))")
            }
        case .mediaSequence:
            try noteHeaderTag(tag)
            if let value = ValueParsing.integer(bytes, start, end) {
                result.mediaSequence = value
            } else {
                try report(.invalidValue, "EXT-X-MEDIA-SEQUENCE: not a decimal integer: \(text(start, end))")
            }
        case .discontinuitySequence:
            try noteHeaderTag(tag)
            if let value = ValueParsing.integer(bytes, start, end) {
                result.discontinuitySequence = value
            } else {
                try report(.invalidValue, "EXT-X-DISCONTINUITY-SEQUENCE: not a decimal integer: \(text(start, end))")
            }
        case .endList:
            result.endList = true
            if result.firstLine[tag] == nil { result.firstLine[tag] = lineIndex }
        case .playlistType:
            try noteHeaderTag(tag)
            let value = text(start, end)
            if value != "VOD" && value != "EVENT" {
                try report(.invalidValue, "EXT-X-PLAYLIST-TYPE must be VOD or EVENT, found \(value)")
            }
            result.playlistType = value
        case .iFramesOnly:
            result.iFramesOnly = true
            if result.firstLine[tag] == nil { result.firstLine[tag] = lineIndex }
        case .partInf:
            try noteHeaderTag(tag)
            let list = attributes(tag, start, end)
            _ = required(list, "PART-TARGET", tag)
            result.partTarget = decimalAttribute(list, "PART-TARGET", tag)
        case .serverControl:
            try noteHeaderTag(tag)
            let list = attributes(tag, start, end)
            result.serverControl = ServerControl(
                canSkipUntil: decimalAttribute(list, "CAN-SKIP-UNTIL", tag),
                canSkipDateRanges: list["CAN-SKIP-DATERANGES"] == "YES",
                holdBack: decimalAttribute(list, "HOLD-BACK", tag),
                partHoldBack: decimalAttribute(list, "PART-HOLD-BACK", tag),
                canBlockReload: list["CAN-BLOCK-RELOAD"] == "YES")
        default:
            return false
        }
        return true
    }

    /// Tags about media segments, parts and their neighbours (rfc8216bis 4.4.4, 4.4.5); false for any other tag.
    private mutating func handleSegmentTag(_ tag: TagName, _ start: Int, _ end: Int, hasValue: Bool) throws(PlaylistError) -> Bool {
        switch tag {
        case .extinf:
            try handleExtinf(start, end, hasValue: hasValue)
        case .byteRange:
            if let range = ValueParsing.byteRange(text(start, end)) {
                pending.byteRange = range
                pending.byteRangeLine = lineIndex
            } else {
                try report(.invalidValue, "EXT-X-BYTERANGE: expected <length>[@<offset>], found \(text(start, end))")
            }
        case .discontinuity:
            pending.discontinuity = true
        case .gap:
            pending.gap = true
        case .bitrate:
            if let value = ValueParsing.integer(bytes, start, end) {
                currentBitrate = value
            } else {
                try report(.invalidValue, "EXT-X-BITRATE: not a decimal integer: \(text(start, end))")
            }
        case .programDateTime:
            let value = text(start, end)
            if let date = ValueParsing.dateTime(value) {
                pending.programDateTime = date
            } else {
                try report(.invalidValue, "EXT-X-PROGRAM-DATE-TIME: not an ISO 8601 date-time: \(value)")
            }
        case .key:
            let list = attributes(tag, start, end)
            let key = makeKey(list, tag)
            addPlace(list.attribute("URI"), .key, msn: nextMSN)
            if let key, key.method != "NONE" {
                result.keysByLine[lineIndex] = key
                currentKeyLine = lineIndex
            } else {
                currentKeyLine = -1
            }
        case .map:
            let list = attributes(tag, start, end)
            if let uri = required(list, "URI", tag) {
                var range: ByteRange?
                if let raw = list["BYTERANGE"] {
                    if let parsed = ValueParsing.byteRange(raw) {
                        range = ByteRange(length: parsed.length, offset: parsed.offset ?? 0)
                    } else {
                        problems.append((.invalidValue, "EXT-X-MAP: BYTERANGE must be <length>[@<offset>], found \(raw)"))
                    }
                }
                result.mapsByLine[lineIndex] = MapInfo(uri: uri, byteRange: range)
                currentMapLine = lineIndex
            }
            addPlace(list.attribute("URI"), .map, msn: nextMSN)
        case .dateRange:
            let list = attributes(tag, start, end)
            let id = required(list, "ID", tag) ?? ""
            result.dateRanges.append(DateRange(id: id, startDate: list["START-DATE"], attributes: list.dictionary,
                                               line: lineIndex + 1))
            let owner = result.dateRanges.count - 1
            addPlace(list.attribute("X-ASSET-URI"), .dateRangeAsset, msn: nextMSN, owner: owner)
            addPlace(list.attribute("X-ASSET-LIST"), .dateRangeAsset, msn: nextMSN, owner: owner)
        case .skip:
            try noteHeaderTag(tag)
            let list = attributes(tag, start, end)
            _ = required(list, "SKIPPED-SEGMENTS", tag)
            let count = integerAttribute(list, "SKIPPED-SEGMENTS", tag) ?? 0
            skippedSegments = ValueParsing.add(skippedSegments, count)
            result.skip = Skip(skippedSegments: count,
                               recentlyRemovedDateRanges: list["RECENTLY-REMOVED-DATERANGES"], line: lineIndex + 1)
        case .part:
            try handlePart(start, end)
        case .preloadHint:
            let list = attributes(tag, start, end)
            let type = required(list, "TYPE", tag) ?? ""
            if let uri = required(list, "URI", tag) {
                result.preloadHints.append(PreloadHint(
                    type: type, uri: uri,
                    byteRangeStart: integerAttribute(list, "BYTERANGE-START", tag),
                    byteRangeLength: integerAttribute(list, "BYTERANGE-LENGTH", tag), line: lineIndex + 1))
            }
            // A PART hint names the part after the last EXT-X-PART (rfc8216bis 4.4.5.3): its index
            // in the segment being produced is the number of parts listed for it so far.
            addPlace(list.attribute("URI"), .preloadHint, msn: nextMSN, partIndex: type == "PART" ? pending.parts.count : nil,
                     owner: result.preloadHints.count - 1)
        case .renditionReport:
            let list = attributes(tag, start, end)
            if let uri = required(list, "URI", tag) {
                result.renditionReports.append(RenditionReport(
                    uri: uri, lastMSN: integerAttribute(list, "LAST-MSN", tag),
                    lastPart: integerAttribute(list, "LAST-PART", tag), line: lineIndex + 1))
            }
            addPlace(list.attribute("URI"), .renditionReport, owner: result.renditionReports.count - 1)
        default:
            return false
        }
        return true
    }

    /// Tags of a multivariant playlist (rfc8216bis 4.4.6); false for any other tag.
    private mutating func handleMultivariantTag(_ tag: TagName, _ start: Int, _ end: Int, hasValue: Bool) throws(PlaylistError) -> Bool {
        switch tag {
        case .media:
            try handleMedia(start, end)
        case .streamInf:
            if let previous = pendingStreamInf {
                try report(.missingURI, "EXT-X-STREAM-INF is not followed by a URI line", line: previous.line)
            }
            let list = attributes(tag, start, end)
            if required(list, "BANDWIDTH", tag) != nil { _ = integerAttribute(list, "BANDWIDTH", tag) }
            pendingStreamInf = (list, lineIndex)
        case .iFrameStreamInf:
            let list = attributes(tag, start, end)
            let bandwidth = required(list, "BANDWIDTH", tag) != nil ? integerAttribute(list, "BANDWIDTH", tag) : nil
            if let uri = required(list, "URI", tag) {
                addPlace(list.attribute("URI"), .iFrameVariant, variantIndex: result.iFrameVariants.count)
                result.iFrameVariants.append(IFrameVariant(
                    index: result.iFrameVariants.count, bandwidth: bandwidth ?? 0, resolution: list["RESOLUTION"],
                    codecs: list["CODECS"], uri: uri, attributes: list.dictionary, line: lineIndex + 1))
                result.iFrameLines.append(lineIndex)
            }
        case .sessionData:
            let list = attributes(tag, start, end)
            let id = required(list, "DATA-ID", tag) ?? ""
            if list["VALUE"] == nil && list["URI"] == nil {
                problems.append((.missingAttribute, "EXT-X-SESSION-DATA: needs VALUE or URI"))
            }
            result.sessionData.append(SessionData(dataID: id, value: list["VALUE"], uri: list["URI"],
                                                  language: list["LANGUAGE"], line: lineIndex + 1))
            addPlace(list.attribute("URI"), .sessionData, owner: result.sessionData.count - 1)
        case .sessionKey:
            let list = attributes(tag, start, end)
            var owner: Int?
            if let key = makeKey(list, tag) {
                owner = result.sessionKeys.count
                result.sessionKeys.append(key)
            }
            addPlace(list.attribute("URI"), .sessionKey, owner: owner)
        case .contentSteering:
            let list = attributes(tag, start, end)
            if let uri = required(list, "SERVER-URI", tag) {
                result.contentSteering = ContentSteering(serverURI: uri, pathwayID: list["PATHWAY-ID"])
            }
            addPlace(list.attribute("SERVER-URI"), .steering)
        default:
            return false
        }
        return true
    }

    private mutating func handleDefine(_ start: Int, _ end: Int) throws(PlaylistError) {
        let list = attributes(.define, start, end)
        if let name = list["NAME"] {
            guard let value = list["VALUE"] else {
                try report(.missingAttribute, "EXT-X-DEFINE: NAME=\(name) without VALUE")
                return
            }
            if result.definitions[name] != nil { try report(.duplicateTag, "EXT-X-DEFINE: \(name) is defined twice") }
            result.definitions[name] = value
        } else if let name = list["IMPORT"] {
            importedVariables.insert(name)
        } else if let name = list["QUERYPARAM"] {
            if let value = Self.queryParameter(name, in: url) {
                result.definitions[name] = value
            } else {
                try report(.undefinedVariable, "EXT-X-DEFINE: QUERYPARAM \(name) is not in the playlist URL's query")
            }
        } else {
            try report(.missingAttribute, "EXT-X-DEFINE: needs NAME, IMPORT or QUERYPARAM")
        }
    }

    static func queryParameter(_ name: String, in url: URL?) -> String? {
        guard let url, let components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return nil }
        return components.queryItems?.first(where: { $0.name == name })?.value
    }

    private mutating func makeKey(_ list: AttributeList, _ tag: TagName) -> Key? {
        guard let method = required(list, "METHOD", tag) else { return nil }
        let uri = list["URI"]
        if method != "NONE" && uri == nil {
            problems.append((.missingAttribute, "\(tag.rawValue.dropFirst()): missing required attribute URI"))
        }
        if method == "NONE" && tag == .sessionKey {
            problems.append((.invalidValue, "EXT-X-SESSION-KEY: METHOD must not be NONE"))
        }
        return Key(method: method, uri: uri, iv: list["IV"], keyFormat: list["KEYFORMAT"],
                   keyFormatVersions: list["KEYFORMATVERSIONS"])
    }

    private mutating func handleExtinf(_ start: Int, _ end: Int, hasValue: Bool) throws(PlaylistError) {
        if pending.duration != nil { try report(.duplicateTag, "EXTINF appears twice before one URI line") }
        let (duration, durationEnd, comma) = ValueParsing.extinf(bytes, start, end)
        if let duration {
            pending.duration = duration
        } else {
            pending.duration = 0
            try report(.invalidValue, "EXTINF: duration is not a decimal number: \(text(start, durationEnd))")
        }
        if comma < end {
            pending.title = comma + 1 < end ? text(comma + 1, end) : nil
        } else if strict {
            // RFC 8216 requires the comma; many packagers omit it, so only strict mode objects.
            try report(.malformedTag, "EXTINF: missing comma after the duration")
        }
    }

    private mutating func handlePart(_ start: Int, _ end: Int) throws(PlaylistError) {
        let list = attributes(.part, start, end)
        let duration = required(list, "DURATION", .part) != nil ? decimalAttribute(list, "DURATION", .part) : nil
        guard let uri = required(list, "URI", .part) else { return }
        var range: ByteRange?
        var implicitPart = false
        if let raw = list["BYTERANGE"] {
            if let parsed = ValueParsing.byteRange(raw) {
                var offset = parsed.offset
                if offset == nil {
                    implicitPart = true
                    if let previous = previousPartRange, previous.uri == uri {
                        offset = previous.end
                    } else {
                        problems.append((.invalidByteRange, "EXT-X-PART: BYTERANGE without offset, but the previous part is not a sub-range of \(uri)"))
                    }
                }
                range = ByteRange(length: parsed.length, offset: offset ?? 0)
                if implicitPart, let range { result.implicitPartByteRanges[lineIndex] = range }
                previousPartRange = (uri, ValueParsing.add(offset ?? 0, parsed.length))
            } else {
                problems.append((.invalidValue, "EXT-X-PART: BYTERANGE must be <length>[@<offset>], found \(raw)"))
            }
        } else {
            previousPartRange = nil
        }
        addPlace(list.attribute("URI"), .part, msn: nextMSN, partIndex: pending.parts.count, owner: result.segmentRecords.count)
        pending.parts.append(Part(duration: duration ?? 0, uri: uri, independent: list["INDEPENDENT"] == "YES",
                                  byteRange: range, gap: list["GAP"] == "YES", line: lineIndex + 1))
    }

    private mutating func handleMedia(_ start: Int, _ end: Int) throws(PlaylistError) {
        let list = attributes(.media, start, end)
        let type = required(list, "TYPE", .media) ?? ""
        let groupID = required(list, "GROUP-ID", .media) ?? ""
        let name = required(list, "NAME", .media) ?? ""
        if type == "CLOSED-CAPTIONS" && list["URI"] != nil {
            problems.append((.invalidValue, "EXT-X-MEDIA: TYPE=CLOSED-CAPTIONS must not have a URI"))
        }
        let rendition = Rendition(index: result.renditions.count, type: type, groupID: groupID,
                                  language: list["LANGUAGE"], name: name, isDefault: list["DEFAULT"] == "YES",
                                  autoselect: list["AUTOSELECT"] == "YES", uri: list["URI"],
                                  attributes: list.dictionary, line: lineIndex + 1)
        addPlace(list.attribute("URI"), .rendition, renditionIndex: result.renditions.count)
        result.renditions.append(rendition)
        result.renditionLines.append(lineIndex)
    }

    // MARK: URI lines

    private mutating func handleURILine(_ start: Int, _ end: Int) throws(PlaylistError) {
        let substituted = substitutedText(start, end)
        if lineBytes.control {
            for position in start..<end where bytes[position] < 0x20 || bytes[position] == 0x7F {
                try report(.invalidValue, "URI contains a control character (byte \(bytes[position]))")
                break
            }
        }
        if let streamInf = pendingStreamInf {
            pendingStreamInf = nil
            let uri = substituted ?? String(decoding: bytes[start..<end], as: UTF8.self)
            let list = streamInf.attributes
            let index = result.variants.count
            result.variants.append(Variant(
                index: index, bandwidth: list["BANDWIDTH"].flatMap(ValueParsing.integer) ?? 0,
                averageBandwidth: list["AVERAGE-BANDWIDTH"].flatMap(ValueParsing.integer),
                resolution: list["RESOLUTION"], codecs: list["CODECS"],
                frameRate: list["FRAME-RATE"].flatMap(ValueParsing.decimal),
                audio: list["AUDIO"], video: list["VIDEO"], subtitles: list["SUBTITLES"],
                closedCaptions: list["CLOSED-CAPTIONS"], pathwayID: list["PATHWAY-ID"],
                score: list["SCORE"].flatMap(ValueParsing.decimal), uri: uri,
                attributes: list.dictionary, line: streamInf.line + 1))
            result.variantLines.append(LinePair(tag: streamInf.line, uri: lineIndex))
            result.places.append(URIPlace(lineIndex: lineIndex, start: start, end: end, storedText: uri, kind: .variant,
                                          variantIndex: index))
            return
        }
        if sawMultivariantTag && !sawMediaTag {
            try report(.unexpectedTag, "URI line without a preceding EXT-X-STREAM-INF")
            return
        }
        try finishSegment(substituted: substituted, start: start, end: end)
    }

    /// `substituted`: the URI's text when variables changed it; nil when it is the line's bytes.
    private mutating func finishSegment(substituted: String?, start: Int, end: Int) throws(PlaylistError) {
        sawMediaTag = true
        let msn = nextMSN
        var duration = 0.0
        if let value = pending.duration {
            duration = value
        } else {
            try report(.missingTag, "media segment URI without a preceding EXTINF")
        }
        var range: ByteRange?
        if let pendingRange = pending.byteRange {
            let uri = substituted ?? String(decoding: bytes[start..<end], as: UTF8.self)
            var offset = pendingRange.offset
            if offset == nil {
                result.implicitByteRangeLines[result.segmentRecords.count] = pending.byteRangeLine
                if let previous = previousRange, previous.uri == uri {
                    offset = previous.end
                } else {
                    try report(.invalidByteRange, "EXT-X-BYTERANGE without offset, but the previous segment is not a sub-range of \(uri)",
                               line: pending.byteRangeLine)
                }
            }
            range = ByteRange(length: pendingRange.length, offset: offset ?? 0)
            previousRange = (uri, ValueParsing.add(offset ?? 0, pendingRange.length))
        } else {
            previousRange = nil
        }
        if pending.discontinuity { discontinuities += 1 }
        let programDateTime = pending.programDateTime ?? nextProgramDateTime
        nextProgramDateTime = programDateTime?.addingTimeInterval(duration)
        result.segmentSpans.append(SegmentSpan(firstLine: segmentFirstLine, uriLine: lineIndex))
        result.segmentRecords.append(SegmentRecord(
            msn: msn, discontinuitySequence: ValueParsing.add(result.discontinuitySequence, discontinuities),
            duration: duration, startTime: elapsed, programDateTime: programDateTime, byteRange: range,
            bitrate: currentBitrate, title: pending.title, parts: pending.parts, placeIndex: result.places.count,
            keyLine: currentKeyLine, mapLine: currentMapLine, line: lineIndex + 1,
            discontinuity: pending.discontinuity, gap: pending.gap))
        result.places.append(URIPlace(lineIndex: lineIndex, start: start, end: end, storedText: substituted, kind: .segment, msn: msn,
                                      owner: result.segmentRecords.count - 1))
        elapsed += duration
        segmentFirstLine = lineIndex + 1
        pending = PendingSegment()
        previousPartRange = nil
    }

    // MARK: end

    private mutating func finish() throws(PlaylistError) {
        if let streamInf = pendingStreamInf {
            try report(.missingURI, "EXT-X-STREAM-INF is not followed by a URI line", line: streamInf.line)
        }
        result.kind = sawMultivariantTag ? .multivariant : .media
        result.nextMSN = nextMSN
        result.trailingParts = pending.parts
        if pending.duration != nil {
            try report(.missingURI, "EXTINF is not followed by a URI line")
        }
        if let target = result.targetDuration,
            let long = result.segmentRecords.first(where: { $0.duration.rounded() > Double(target) })
        {
            try report(
                .invalidValue,
                "EXTINF duration \(long.duration) rounds above EXT-X-TARGETDURATION \(target) (RFC 8216 4.3.3.1)",
                line: long.line - 1)
        }
        if result.kind == .media && result.targetDuration == nil && (!result.segmentRecords.isEmpty || sawMediaTag) {
            try report(.missingTag, "media playlist without EXT-X-TARGETDURATION", line: result.headerLine)
        }
    }
}
