import Foundation

/// Where a URI sits in the storage buffer and what it refers to.
struct URIPlace: Sendable {
    var lineIndex: Int
    /// Storage offsets of the URI text (inside the quotes for attributes).
    var start: Int
    var end: Int
    /// The text after variable substitution when it is not the bytes at `start..<end` (an
    /// attribute's value, a substituted line); nil when it is: most segment URIs, which then cost
    /// no `String` unless one is asked for (`text(in:)`).
    var storedText: String?
    var kind: URIKind
    var variantIndex: Int?
    var renditionIndex: Int?
    var msn: Int?
    var partIndex: Int?
    /// Index of the view entry the URI belongs to (segment, hint, report, date range,
    /// session data or key), so that rewriting can update the views without a new pass.
    var owner: Int?
}

extension URIPlace {
    /// The text after variable substitution; `storage` is the playlist's, which `start..<end` index.
    func text(in storage: [UInt8]) -> String {
        storedText ?? String(decoding: storage[start..<end], as: UTF8.self)
    }
}

/// A media segment without the strings it shares with other places: its URI is the text of
/// its URI place, its key and map are looked up by the line of the tag in effect.
struct SegmentRecord: Sendable {
    var msn: Int
    var discontinuitySequence: Int
    var duration: Double
    var startTime: Double
    var programDateTime: Date?
    var byteRange: ByteRange?
    var bitrate: Int?
    var title: String?
    var parts: [Part]
    var placeIndex: Int
    var keyLine: Int
    var mapLine: Int
    var line: Int
    var discontinuity: Bool
    var gap: Bool
}

/// A tag line and the URI line that goes with it (EXT-X-STREAM-INF).
struct LinePair: Sendable {
    var tag: Int
    var uri: Int
}

/// The lines a segment may own: from the line after the previous segment's URI line
/// through its own URI line. Only segment-scoped tags in that span go with it on removal.
struct SegmentSpan: Sendable {
    var firstLine: Int
    var uriLine: Int
}

/// Everything computed from the lines in one pass: the typed views plus the line indices
/// that edits and URI rewriting need.
struct Analysis: Sendable {
    var kind: PlaylistKind = .media
    var version: Int?
    var independentSegments = false
    var definitions: [String: String] = [:]

    var variants: [Variant] = []
    var variantLines: [LinePair] = []
    var renditions: [Rendition] = []
    var renditionLines: [Int] = []
    var iFrameVariants: [IFrameVariant] = []
    var iFrameLines: [Int] = []
    var sessionData: [SessionData] = []
    var sessionKeys: [Key] = []
    var contentSteering: ContentSteering?

    var targetDuration: Int?
    var mediaSequence = 0
    var discontinuitySequence = 0
    var playlistType: String?
    var endList = false
    var iFramesOnly = false
    var partTarget: Double?
    var serverControl: ServerControl?
    var skip: Skip?
    /// Segments in compact form; `segment(at:)` builds the public view on demand.
    var segmentRecords: [SegmentRecord] = []
    /// EXT-X-KEY / EXT-X-MAP by line index (METHOD=NONE keys are not stored).
    var keysByLine: [Int: Key] = [:]
    var mapsByLine: [Int: MapInfo] = [:]
    /// MSN the segment after the last one gets (counts EXT-X-SKIP).
    var nextMSN = 0
    var segmentSpans: [SegmentSpan] = []
    /// Segments whose EXT-X-BYTERANGE has no offset: segment index → line index of the tag.
    /// Their offset depends on the previous segment's URI, so rewriting URIs pins it.
    var implicitByteRangeLines: [Int: Int] = [:]
    /// Lines of EXT-X-PART tags whose BYTERANGE has no offset, with the resolved range.
    var implicitPartByteRanges: [Int: ByteRange] = [:]
    var trailingParts: [Part] = []
    var preloadHints: [PreloadHint] = []
    var renditionReports: [RenditionReport] = []
    var dateRanges: [DateRange] = []

    var places: [URIPlace] = []
    /// Line index of the `#EXTM3U` line.
    var headerLine = 0
    /// Line index of the first occurrence of each tag.
    var firstLine: [TagName: Int] = [:]
    var warnings: [PlaylistError] = []
}

extension Analysis {
    func segment(at index: Int, storage: [UInt8]) -> Segment {
        let record = segmentRecords[index]
        return Segment(
            msn: record.msn, index: index, discontinuitySequence: record.discontinuitySequence,
            discontinuity: record.discontinuity, duration: record.duration, title: record.title,
            uri: places[record.placeIndex].text(in: storage), byteRange: record.byteRange,
            key: record.keyLine >= 0 ? keysByLine[record.keyLine] : nil,
            map: record.mapLine >= 0 ? mapsByLine[record.mapLine] : nil,
            programDateTime: record.programDateTime, gap: record.gap, bitrate: record.bitrate, parts: record.parts,
            startTime: record.startTime, line: record.line)
    }

    func materializedSegments(storage: [UInt8]) -> [Segment] {
        (0..<segmentRecords.count).map { segment(at: $0, storage: storage) }
    }
}
