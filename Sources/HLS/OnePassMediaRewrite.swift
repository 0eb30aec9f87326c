import Foundation

/// A media playlist with its URIs rewritten in one pass over its bytes, and what a reader of its
/// segments' timing needs: what `Playlist(bytes:url:)`, `bytesRewritingURIs(rewrittenAt:writing:)`,
/// `segmentTimes`, `targetDuration`, `playlistType` and `endList` give together, without the model.
public struct OnePassMediaRewrite {
    public var bytes: [UInt8]
    /// Where each new URI text begins in `bytes`, in order.
    public var rewrittenAt: [Int]
    public var segmentTimes: [(msn: Int, index: Int, startTime: Double)]
    public var targetDuration: Int?
    public var playlistType: String?
    public var endList: Bool
}

extension Playlist {
    /// The one-pass rewrite of a plain media playlist: one whose URIs are segment lines and the URIs
    /// of `EXT-X-KEY` and `EXT-X-MAP`, in ASCII, with no tag that moves an MSN or a byte offset or
    /// adds URIs of other kinds (`EXT-X-BYTERANGE`, `-SKIP`, `-PART`, `-PRELOAD-HINT`,
    /// `-RENDITION-REPORT`, `-DATERANGE`, `-DEFINE`, multivariant tags). Most live playlists are
    /// plain, and a live playlist is new at every reload, so this is what a proxy pays per reload.
    ///
    /// The result is exactly what the parse and the streaming rewrite give with the same writer
    /// (the writer is handed the same facts and absolute URIs, in the same order); nil, with the
    /// writer perhaps called already, for a playlist that is not plain: parse it then.
    public static func rewritingPlainMediaURIs(
        _ bytes: [UInt8], url: URL?,
        writing write: (URIPlaceFacts, UnsafeBufferPointer<UInt8>?, inout [UInt8]) -> Bool
    ) -> OnePassMediaRewrite? {
        bytes.withUnsafeBufferPointer { rewritingPlainMediaURIs($0, url: url, writing: write) }
    }

    /// The same, for bytes the caller holds elsewhere (a network buffer), valid during the call.
    public static func rewritingPlainMediaURIs(
        _ bytes: UnsafeBufferPointer<UInt8>, url: URL?,
        writing write: (URIPlaceFacts, UnsafeBufferPointer<UInt8>?, inout [UInt8]) -> Bool
    ) -> OnePassMediaRewrite? {
        var pass = OnePass(old: bytes, resolver: URIResolver(base: url))
        defer { pass.joined.deallocate() }
        return pass.run(write)
    }
}

/// The pass itself. Each tag is handled as `Analyzer` handles it, as far as it shapes the output:
/// what the analyser only warns about changes nothing here either.
private struct OnePass {
    let old: UnsafeBufferPointer<UInt8>
    let resolver: URIResolver
    var output: [UInt8] = []
    var starts: [Int] = []
    var times: [(msn: Int, index: Int, startTime: Double)] = []
    /// Absolute URIs the resolver writes (those not under the base directory), one after the other.
    var absolute: [UInt8] = []
    /// The base directory, then the reference being resolved: a plain relative reference (most
    /// segment lines) is resolved by copying its own bytes after the directory, written once.
    var joined: UnsafeMutableBufferPointer<UInt8>
    /// The directory's length in `joined`; nil without a base.
    let directoryCount: Int?
    /// Input bytes before it are in `output` already.
    var cursor = 0
    var mediaSequence = 0
    var elapsed = 0.0
    var pendingDuration: Double?
    var targetDuration: Int?
    var playlistType: String?
    var endList = false

    init(old: UnsafeBufferPointer<UInt8>, resolver: URIResolver) {
        self.old = old
        self.resolver = resolver
        output.reserveCapacity(old.count * 2 + 256)
        times.reserveCapacity(old.count / 32)
        starts.reserveCapacity(old.count / 32)
        absolute.reserveCapacity(1 << 14)
        let directory = resolver.directory ?? []
        directoryCount = resolver.directory?.count
        joined = .allocate(capacity: directory.count + 256)
        _ = joined.initialize(from: directory)
    }

    mutating func run(_ write: (URIPlaceFacts, UnsafeBufferPointer<UInt8>?, inout [UInt8]) -> Bool) -> OnePassMediaRewrite? {
        guard let base = old.baseAddress else { return nil }
        let count = old.count
        var lineStart = 0
        var lineIndex = 0
        while lineStart < count {
            let newline = memchr(base + lineStart, 0x0A, count - lineStart).map { base.distance(to: $0.assumingMemoryBound(to: UInt8.self)) }
            var lineEnd = newline ?? count
            if newline != nil && lineEnd > lineStart && old[lineEnd - 1] == 0x0D { lineEnd -= 1 }  // CRLF
            let (start, end) = LineScanner.trimmed(old, lineStart, lineEnd)
            if lineIndex == 0 {
                // `#EXTM3U` first; a byte order mark or blank lines before it are for the parse.
                guard end - start == 7, memcmp(base + start, "#EXTM3U", 7) == 0 else { return nil }
            } else if start < end {
                guard process(start, end, line: lineIndex, write) else { return nil }
            }
            lineStart = (newline ?? count) + 1
            lineIndex += 1
        }
        guard lineIndex > 0 else { return nil }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: old[cursor...]))
        return OnePassMediaRewrite(
            bytes: output, rewrittenAt: starts, segmentTimes: times, targetDuration: targetDuration,
            playlistType: playlistType, endList: endList)
    }

    /// False when the line makes the playlist one this pass does not take.
    private mutating func process(
        _ start: Int, _ end: Int, line: Int, _ write: (URIPlaceFacts, UnsafeBufferPointer<UInt8>?, inout [UInt8]) -> Bool
    ) -> Bool {
        if old[start] != 0x23 {  // a segment's URI line
            guard isASCII(start, end) else { return false }
            let msn = ValueParsing.add(mediaSequence, times.count)
            times.append((msn, times.count, elapsed))
            elapsed += pendingDuration ?? 0
            pendingDuration = nil
            place(start, end, kind: .segment, msn: msn, line: line + 1, write)
            return true
        }
        if end - start >= 8 && memcmp(old.baseAddress! + start, "#EXTINF:", 8) == 0 {  // half the lines: no look-up
            noteDuration(start + 8, end)
            return true
        }
        guard end - start >= 4, old[start + 1] == 0x45, old[start + 2] == 0x58, old[start + 3] == 0x54 else { return true }  // a comment
        let nameEnd = LineScanner.tagNameEnd(old, start, end)
        guard let tag = TagName.lookup(UnsafeBufferPointer(rebasing: old[start..<nameEnd])) else { return true }  // unknown: passes through
        let valueStart = nameEnd < end ? nameEnd + 1 : end
        switch tag {
        case .extinf:
            noteDuration(valueStart, end)
        case .mediaSequence:
            if let value = ValueParsing.integer(old, valueStart, end) { mediaSequence = value }
        case .targetDuration:
            // The analyser also takes a whole decimal; that is for the parse.
            guard let value = ValueParsing.integer(old, valueStart, end) else { return false }
            targetDuration = value
        case .playlistType:
            playlistType = String(decoding: UnsafeBufferPointer(rebasing: old[valueStart..<end]), as: UTF8.self)
        case .endList:
            endList = true
        case .key, .map:
            guard isASCII(start, end) else { return false }
            let list = AttributeParser.parse(
                old, from: valueStart, to: end, substitute: { String(decoding: UnsafeBufferPointer(rebasing: old[$0..<$1]), as: UTF8.self) },
                problem: { _ in })
            if let uri = list.attribute("URI") {
                place(uri.valueStart, uri.valueEnd, kind: tag == .key ? .key : .map, msn: ValueParsing.add(mediaSequence, times.count),
                      line: line + 1, write)
            }
        case .extm3u, .version, .independentSegments, .start, .allowCache, .discontinuitySequence, .iFramesOnly,
             .serverControl, .discontinuity, .programDateTime, .gap, .bitrate:
            break  // nothing the rewrite or the timing reads
        case .partInf:
            return false  // Low-Latency HLS: its parts come near the end, so give up before the work is done twice
        case .define, .byteRange, .dateRange, .skip, .preloadHint, .renditionReport, .part,
             .media, .streamInf, .iFrameStreamInf, .sessionData, .sessionKey, .contentSteering:
            return false
        }
        return true
    }

    /// An `EXTINF`'s duration; 0 when it is not a number ≥ 0, as the analyser takes it.
    private mutating func noteDuration(_ valueStart: Int, _ end: Int) {
        pendingDuration = ValueParsing.extinf(old, valueStart, end).duration ?? 0
    }

    /// The URI at `old[start..<end]` written anew, as the streaming rewrite writes it.
    private mutating func place(
        _ start: Int, _ end: Int, kind: URIKind, msn: Int, line: Int,
        _ write: (URIPlaceFacts, UnsafeBufferPointer<UInt8>?, inout [UInt8]) -> Bool
    ) {
        output.append(contentsOf: UnsafeBufferPointer(rebasing: old[cursor..<start]))
        cursor = end
        let written = output.count
        let facts = URIPlaceFacts(kind: kind, msn: msn, line: line)
        let reference = UnsafeBufferPointer(rebasing: old[start..<end])
        let wrote: Bool
        if let directoryCount, URIResolver.isPlainRelativePath(reference) {
            if directoryCount + reference.count > joined.count { grow(to: directoryCount + reference.count) }
            (joined.baseAddress! + directoryCount).update(from: reference.baseAddress!, count: reference.count)
            wrote = write(facts, UnsafeBufferPointer(start: joined.baseAddress, count: directoryCount + reference.count), &output)
        } else {
            // Each URI is resolved after the one before, not into an emptied buffer (emptying costs
            // more than the copy); the buffer is emptied now and then.
            if absolute.count > 1 << 13 { absolute.removeAll(keepingCapacity: true) }
            let mark = absolute.count
            wrote = resolver.resolve(reference, appendingTo: &absolute)
                ? absolute.withUnsafeBufferPointer { write(facts, UnsafeBufferPointer(rebasing: $0[mark...]), &output) }
                : write(facts, nil, &output)
        }
        Playlist.settlePlace(old, start, end, kind: kind, wrote: wrote, from: written, in: &output, starts: &starts)
    }

    /// `joined` with room for `count` bytes, the directory kept.
    private mutating func grow(to count: Int) {
        let larger = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(count, joined.count * 2))
        larger.baseAddress!.initialize(from: joined.baseAddress!, count: directoryCount ?? 0)
        joined.deallocate()
        joined = larger
    }

    /// ASCII only: the URI's bytes are then its text, as the analyser keeps it.
    private func isASCII(_ start: Int, _ end: Int) -> Bool {
        var bits: UInt8 = 0
        for position in start..<end { bits |= old[position] }
        return bits & 0x80 == 0
    }
}
