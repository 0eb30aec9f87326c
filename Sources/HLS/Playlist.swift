import Foundation

/// An HLS playlist kept as its original lines plus typed views computed over them.
///
/// Every line keeps its bytes and its line ending until an edit touches it, so an
/// unmodified playlist is written back byte for byte.
public struct Playlist: Sendable {
    /// Input bytes followed by the bytes of edited lines. Lines point into it.
    var storage: [UInt8]
    var lines: [LineRecord]
    var analysis: Analysis
    /// True while the lines tile `storage` in order with their line endings, so that
    /// `storage` is the serialised playlist. Raw line edits clear it; `reanalyze` restores it.
    var compact = true
    /// `segments` built on first use; replaced whenever the analysis changes.
    var segmentCache = SegmentCache()

    /// Base for resolving relative URIs (RFC 3986) and source of `EXT-X-DEFINE:QUERYPARAM` values.
    public var url: URL? {
        didSet { reanalyze() }
    }

    /// Problems found by a lenient parse (empty after a strict parse).
    public var warnings: [PlaylistError] { analysis.warnings }

    /// Lenient parse (`strict: false`) keeps going and collects `warnings`; it throws only
    /// for input that is not HLS (no `#EXTM3U`). Strict parse throws the first problem.
    public init(bytes: some Collection<UInt8>, url: URL? = nil, strict: Bool = false) throws(PlaylistError) {
        let storage = Array(bytes)
        let lines = LineScanner.split(storage)
        self.storage = storage
        self.lines = lines
        self.url = url
        self.analysis = try Analyzer.analyze(bytes: storage, lines: lines, url: url, strict: strict)
    }

    public init(string: String, url: URL? = nil, strict: Bool = false) throws(PlaylistError) {
        try self.init(bytes: Array(string.utf8), url: url, strict: strict)
    }

    /// Recomputes the views after an edit. Edited playlists are always analysed leniently.
    mutating func reanalyze() {
        segmentCache = SegmentCache()
        compactStorage()
        do {
            analysis = try Analyzer.analyze(bytes: storage, lines: lines, url: url, strict: false)
        } catch {
            // Only a missing #EXTM3U throws in lenient mode; keep the lines and report it.
            var empty = Analysis()
            empty.warnings = [error]
            analysis = empty
        }
    }

    // MARK: views

    public var kind: PlaylistKind { analysis.kind }
    public var version: Int? { analysis.version }
    public var independentSegments: Bool { analysis.independentSegments }
    /// Variables from `EXT-X-DEFINE` (NAME/VALUE and QUERYPARAM).
    public var definitions: [String: String] { analysis.definitions }

    public var variants: [Variant] { analysis.variants }
    public var renditions: [Rendition] { analysis.renditions }
    public var iFrameVariants: [IFrameVariant] { analysis.iFrameVariants }
    public var sessionData: [SessionData] { analysis.sessionData }
    public var sessionKeys: [Key] { analysis.sessionKeys }
    public var contentSteering: ContentSteering? { analysis.contentSteering }

    public var targetDuration: Int? { analysis.targetDuration }
    public var mediaSequence: Int { analysis.mediaSequence }
    public var discontinuitySequence: Int { analysis.discontinuitySequence }
    public var playlistType: String? { analysis.playlistType }
    public var endList: Bool { analysis.endList }
    public var iFramesOnly: Bool { analysis.iFramesOnly }
    /// The media segments. Built from the analysis on first use and kept until the next edit;
    /// a proxy that only rewrites URIs never pays for them.
    public var segments: [Segment] { segmentCache.value { analysis.materializedSegments(storage: storage) } }
    public var segmentCount: Int { analysis.segmentRecords.count }
    /// Each segment's MSN, index and start time, read without building its `Segment` (a live
    /// playlist's reload needs only these).
    public var segmentTimes: [(msn: Int, index: Int, startTime: Double)] {
        analysis.segmentRecords.indices.map { index in
            let record = analysis.segmentRecords[index]
            return (record.msn, index, record.startTime)
        }
    }
    /// `EXT-X-PART` tags after the last segment URI: the segment being produced (LL-HLS).
    public var trailingParts: [Part] { analysis.trailingParts }
    public var partTarget: Double? { analysis.partTarget }
    public var serverControl: ServerControl? { analysis.serverControl }
    public var skip: Skip? { analysis.skip }
    public var preloadHints: [PreloadHint] { analysis.preloadHints }
    public var renditionReports: [RenditionReport] { analysis.renditionReports }
    public var dateRanges: [DateRange] { analysis.dateRanges }
    /// MSN the next segment after the last one will get.
    public var nextMSN: Int { analysis.nextMSN }
    /// Sum of segment durations.
    public var totalDuration: Double { analysis.segmentRecords.reduce(0) { $0 + $1.duration } }

    // MARK: lines

    /// Number of lines (a final line ending does not start another line).
    public var lineCount: Int { lines.count }

    /// The text of a line (0-based index), without its line ending.
    public func line(_ index: Int) -> String? {
        guard lines.indices.contains(index) else { return nil }
        return String(decoding: storage[lines[index].start..<lines[index].end], as: UTF8.self)
    }

    // MARK: writing

    /// The playlist as bytes: byte-exact for an unmodified playlist.
    public func serialized() -> [UInt8] {
        compact ? storage : joinedLines()
    }

    /// Rebuilds `storage` as exactly the serialised lines and re-splits it.
    mutating func compactStorage() {
        guard !compact else { return }
        storage = joinedLines()
        lines = LineScanner.split(storage)
        compact = true
    }

    private func joinedLines() -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(storage.count + 64)
        storage.withUnsafeBufferPointer { buffer in
            for line in lines {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[line.start..<line.end]))
                switch line.terminator {
                case .none: break
                case .lf: output.append(0x0A)
                case .crlf: output.append(0x0D); output.append(0x0A)
                }
            }
        }
        return output
    }

    public var text: String { String(decoding: serialized(), as: UTF8.self) }
}

/// Holds the materialised `segments` of one analysis. Copies of a playlist share it, which is
/// fine: it is only ever filled with the same value, under a lock.
final class SegmentCache: @unchecked Sendable {
    private let lock = NSLock()
    private var segments: [Segment]?

    func value(_ make: () -> [Segment]) -> [Segment] {
        lock.lock()
        defer { lock.unlock() }
        if let segments { return segments }
        let made = make()
        segments = made
        return made
    }
}
