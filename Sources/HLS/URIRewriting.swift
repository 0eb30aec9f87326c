import Foundation

/// URI rewriting: the proxy points every URI at itself.
extension Playlist {
    /// Every URI-bearing place in document order, as `rewriteURIs` would present it.
    public var uriReferences: [URIReference] {
        let resolver = URIResolver(base: url)
        return analysis.places.indices.map { reference(atPlace: $0, resolver: resolver) }
    }

    /// Calls `transform` for every URI-bearing place (URI lines and the URI attributes of
    /// EXT-X-MEDIA, I-FRAME-STREAM-INF, KEY, SESSION-KEY, SESSION-DATA, MAP, PART,
    /// PRELOAD-HINT, RENDITION-REPORT, CONTENT-STEERING SERVER-URI and DATERANGE
    /// X-ASSET-URI / X-ASSET-LIST), in document order. Returning nil (or an empty string)
    /// keeps the original text. Only the URI text changes; the rest of each line keeps its bytes. A `"` or line
    /// break in the new text, and a `#` starting a URI line, are percent-encoded so they cannot
    /// change the playlist's structure.
    public mutating func rewriteURIs(_ transform: (URIReference) -> String?) {
        if !compact { reanalyze() }  // every edit leaves it compact; this keeps offsets honest regardless
        let resolver = URIResolver(base: url)
        let placeCount = analysis.places.count
        var replaced: [(index: Int, text: String)] = []
        var inOrder = true
        var growth = 0
        for index in 0..<placeCount {
            let place = analysis.places[index]
            guard let text = newText(atPlace: index, resolver: resolver, transform) else { continue }
            if let last = replaced.last, analysis.places[last.index].start > place.start { inOrder = false }
            if replaced.isEmpty { replaced.reserveCapacity(placeCount - index) }
            replaced.append((index, text))
            growth += text.utf8.count - (place.end - place.start)
            apply(text, to: place)
        }
        guard !replaced.isEmpty else { return }
        // An implicit byte-range offset means "right after the previous (part of a) segment
        // of the same resource": once URIs change that may no longer hold, so every implicit
        // offset is written out. Rare (single-file playlists written by hand); costs a new pass.
        let pinRanges = !analysis.implicitByteRangeLines.isEmpty || !analysis.implicitPartByteRanges.isEmpty
        if !inOrder { replaced.sort { analysis.places[$0.index].start < analysis.places[$1.index].start } }

        // The new buffer: unchanged stretches copied in one go, new URI text in between.
        var output: [UInt8] = []
        output.reserveCapacity(storage.count + max(0, growth))
        var cursor = 0
        var oldEnds: [Int] = []
        var growthBefore: [Int] = [0]  // growthBefore[k]: growth of the first k replaced places
        oldEnds.reserveCapacity(replaced.count)
        growthBefore.reserveCapacity(replaced.count + 1)
        for item in replaced {
            let place = analysis.places[item.index]
            output.append(contentsOf: storage[cursor..<place.start])
            let start = output.count
            var text = item.text
            text.withUTF8 { output.append(contentsOf: $0) }
            oldEnds.append(place.end)
            growthBefore.append(growthBefore[growthBefore.count - 1] + (output.count - start) - (place.end - place.start))
            analysis.places[item.index].storedText = nil  // the new bytes are the text
            analysis.places[item.index].start = start
            analysis.places[item.index].end = output.count
            cursor = place.end
        }
        output.append(contentsOf: storage[cursor..<storage.count])

        // Every old offset moves by the growth of the replaced URIs that end at or before it.
        var k = 0
        for lineIndex in lines.indices {
            while k < oldEnds.count && oldEnds[k] <= lines[lineIndex].start { k += 1 }
            lines[lineIndex].start += growthBefore[k]
            while k < oldEnds.count && oldEnds[k] <= lines[lineIndex].end { k += 1 }
            lines[lineIndex].end += growthBefore[k]
        }
        if replaced.count < placeCount {
            var isReplaced = [Bool](repeating: false, count: placeCount)
            for item in replaced { isReplaced[item.index] = true }
            for index in 0..<placeCount where !isReplaced[index] {
                let place = analysis.places[index]
                var low = 0
                var high = oldEnds.count
                while low < high {
                    let middle = (low + high) / 2
                    if oldEnds[middle] <= place.start { low = middle + 1 } else { high = middle }
                }
                analysis.places[index].start += growthBefore[low]
                analysis.places[index].end += growthBefore[low]
            }
        }
        storage = output
        compact = true
        if pinRanges {
            for (segment, line) in analysis.implicitByteRangeLines {
                if let range = analysis.segmentRecords[segment].byteRange {
                    replaceLine(line, with: Array("#EXT-X-BYTERANGE:\(range.length)@\(range.offset)".utf8))
                }
            }
            for (line, range) in analysis.implicitPartByteRanges {
                replaceAttributeValue("BYTERANGE", with: "\(range.length)@\(range.offset)", inLine: line)
            }
            reanalyze()
            return
        }
        segmentCache = SegmentCache()
    }

    /// The playlist's bytes with every URI replaced as `rewriteURIs` would replace it, without
    /// changing the playlist: no view or offset is updated, which is most of the work of
    /// `rewriteURIs` when nothing else reads the playlist afterwards.
    public func bytesRewritingURIs(_ transform: (URIReference) -> String?) -> [UInt8] {
        var starts: [Int]? = nil
        return bytesRewritingURIs(transform, rewrittenAt: &starts)
    }

    /// The same, and where each new URI text begins in the bytes, in order (nil when the playlist
    /// needed the full rewrite: implicit byte ranges written out move more than the URIs).
    public func bytesRewritingURIs(_ transform: (URIReference) -> String?, rewrittenAt starts: inout [Int]?) -> [UInt8] {
        guard canStream else {
            var copy = self  // offsets to pin or a stale layout: the full rewrite handles those
            copy.rewriteURIs(transform)
            starts = nil
            return copy.serialized()
        }
        let resolver = URIResolver(base: url)
        return streamRewritingURIs(rewrittenAt: &starts) { index, output in
            guard var text = transform(reference(atPlace: index, resolver: resolver)) else { return false }
            text.withUTF8 { output.append(contentsOf: $0) }
            return true
        }
    }

    /// The streaming rewrite: the playlist's bytes with each URI written by `write` straight into the
    /// output, no `String` on the way. `write` gets the place's facts and its absolute URI (resolved
    /// against `url`; nil when relative without a base), both valid during the call only; it appends
    /// the new text to `output` and returns true, or returns false to keep the URI as written. The
    /// new text is made safe as `rewriteURIs` makes it; `starts` is what the other form gives.
    public func bytesRewritingURIs(
        rewrittenAt starts: inout [Int]?,
        writing write: (URIPlaceFacts, UnsafeBufferPointer<UInt8>?, inout [UInt8]) -> Bool
    ) -> [UInt8] {
        guard canStream else {
            return withoutActuallyEscaping(write) { write in
                bytesRewritingURIs(Self.transform(writing: write), rewrittenAt: &starts)
            }
        }
        let resolver = URIResolver(base: url)
        var absolute: [UInt8] = []
        absolute.reserveCapacity(256)
        return streamRewritingURIs(rewrittenAt: &starts) { index, output in
            let facts = self.facts(ofPlace: index)
            absolute.removeAll(keepingCapacity: true)
            let resolved: Bool
            if var text = analysis.places[index].storedText {
                resolved = text.withUTF8 { resolver.resolve($0, appendingTo: &absolute) }
            } else {
                let (start, end) = (analysis.places[index].start, analysis.places[index].end)
                resolved = storage.withUnsafeBufferPointer { resolver.resolve(UnsafeBufferPointer(rebasing: $0[start..<end]), appendingTo: &absolute) }
            }
            guard resolved else { return write(facts, nil, &output) }
            return absolute.withUnsafeBufferPointer { write(facts, $0, &output) }
        }
    }

    /// `rewriteURIs` with a writer of the streaming form: for a caller that writes its URIs as bytes
    /// and must also edit the playlist afterwards (the proxy when rules change it).
    public mutating func rewriteURIs(writing write: (URIPlaceFacts, UnsafeBufferPointer<UInt8>?, inout [UInt8]) -> Bool) {
        withoutActuallyEscaping(write) { write in rewriteURIs(Self.transform(writing: write)) }
    }

    /// A writer of the streaming form as a transform of the string form: the URI's bytes, the text written.
    private static func transform(
        writing write: @escaping (URIPlaceFacts, UnsafeBufferPointer<UInt8>?, inout [UInt8]) -> Bool
    ) -> (URIReference) -> String? {
        { reference in
            var output: [UInt8] = []
            let written: Bool
            if var absolute = reference.absoluteString {
                written = absolute.withUTF8 { write(reference.facts, $0, &output) }
            } else {
                written = write(reference.facts, nil, &output)
            }
            return written ? String(decoding: output, as: UTF8.self) : nil
        }
    }

    /// True when the URIs can be replaced in the bytes as they are: no implicit byte-range offset
    /// to write out (which moves more than the URIs) and a compact layout.
    private var canStream: Bool {
        compact && analysis.implicitByteRangeLines.isEmpty && analysis.implicitPartByteRanges.isEmpty
    }

    /// The one loop of both byte rewrites: unchanged stretches copied, each place's new text
    /// appended by `write` (false: kept as written), made safe, and kept only when it differs.
    private func streamRewritingURIs(rewrittenAt starts: inout [Int]?, _ write: (_ place: Int, inout [UInt8]) -> Bool) -> [UInt8] {
        let places = analysis.places
        var order: [Int]? = nil  // places are in document order but for attributes read out of order
        if places.indices.dropFirst().contains(where: { places[$0 - 1].start > places[$0].start }) {
            order = places.indices.sorted { places[$0].start < places[$1].start }
        }
        var output: [UInt8] = []
        output.reserveCapacity(storage.count + places.count * 64)
        var newStarts: [Int] = []
        newStarts.reserveCapacity(places.count)
        storage.withUnsafeBufferPointer { old in
            places.withUnsafeBufferPointer { places in
                var cursor = 0
                for position in places.indices {
                    let index = order?[position] ?? position
                    let (start, end) = (places[index].start, places[index].end)
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: old[cursor..<start]))
                    cursor = end
                    let written = output.count
                    let wrote = write(index, &output)
                    Self.settlePlace(old, start, end, kind: places[index].kind, wrote: wrote, from: written, in: &output, starts: &newStarts)
                }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: old[cursor...]))
            }
        }
        starts = newStarts
        return output
    }

    /// Settles what a writer appended from `written` on for the URI at `old[start..<end]`: made safe,
    /// or replaced by the URI as written when the writer returned false or appended nothing; notes in
    /// `starts` where new text begins when it differs. The one step per URI of every byte rewrite.
    @inline(__always)
    static func settlePlace(
        _ old: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, kind: URIKind, wrote: Bool, from written: Int,
        in output: inout [UInt8], starts: inout [Int]
    ) {
        if wrote, output.count > written {
            makeSafe(&output, from: written, kind: kind)
            let same = output.count - written == end - start && output.withUnsafeBufferPointer {
                memcmp($0.baseAddress! + written, old.baseAddress! + start, end - start) == 0
            }
            if !same { starts.append(written) }
            return
        }
        output.removeSubrange(written...)
        output.append(contentsOf: UnsafeBufferPointer(rebasing: old[start..<end]))
    }

    /// Makes the new text from `start` on safe to write: a URI line's leading `#` (it would make the
    /// line a comment) and every `"`, CR and LF (they would end the attribute or the line) percent-encoded.
    private static func makeSafe(_ output: inout [UInt8], from start: Int, kind: URIKind) {
        let leadingHash = (kind == .segment || kind == .variant) && output[start] == 0x23
        let breaking = output.withUnsafeBufferPointer { bytes in
            let (base, count) = (bytes.baseAddress! + start, bytes.count - start)
            return memchr(base, 0x22, count) != nil || memchr(base, 0x0A, count) != nil || memchr(base, 0x0D, count) != nil
        }
        guard leadingHash || breaking else { return }
        var proposed = Array(output[start...])
        output.removeSubrange(start...)
        if leadingHash {
            output.append(contentsOf: [0x25, 0x32, 0x33])
            proposed.removeFirst()
        }
        for byte in proposed {
            switch byte {
            case 0x22: output.append(contentsOf: [0x25, 0x32, 0x32])
            case 0x0A: output.append(contentsOf: [0x25, 0x30, 0x41])
            case 0x0D: output.append(contentsOf: [0x25, 0x30, 0x44])
            default: output.append(byte)
            }
        }
    }

    /// What `transform` makes of the URI of a place, made safe to write there; nil to keep it.
    private func newText(atPlace index: Int, resolver: URIResolver, _ transform: (URIReference) -> String?) -> String? {
        guard let proposed = transform(reference(atPlace: index, resolver: resolver)), !proposed.isEmpty else { return nil }
        let place = analysis.places[index]
        var text = Array(proposed.utf8)
        Self.makeSafe(&text, from: 0, kind: place.kind)
        return text.elementsEqual(storage[place.start..<place.end]) ? nil : String(decoding: text, as: UTF8.self)
    }

    /// Updates the typed view that shows the URI of `place`.
    private mutating func apply(_ text: String, to place: URIPlace) {
        switch place.kind {
        case .variant:
            if let index = place.variantIndex { analysis.variants[index].uri = text }
        case .iFrameVariant:
            if let index = place.variantIndex {
                analysis.iFrameVariants[index].uri = text
                analysis.iFrameVariants[index].attributes["URI"] = text
            }
        case .rendition:
            if let index = place.renditionIndex {
                analysis.renditions[index].uri = text
                analysis.renditions[index].attributes["URI"] = text
            }
        case .segment:
            break  // a segment's URI is the text of its place
        case .part:
            guard let owner = place.owner, let part = place.partIndex else { return }
            if owner < analysis.segmentRecords.count {
                analysis.segmentRecords[owner].parts[part].uri = text
            } else if part < analysis.trailingParts.count {
                analysis.trailingParts[part].uri = text
            }
        case .key:
            analysis.keysByLine[place.lineIndex]?.uri = text
        case .map:
            analysis.mapsByLine[place.lineIndex]?.uri = text
        case .preloadHint:
            if let index = place.owner { analysis.preloadHints[index].uri = text }
        case .renditionReport:
            if let index = place.owner { analysis.renditionReports[index].uri = text }
        case .dateRangeAsset:
            guard let index = place.owner else { return }
            for name in ["X-ASSET-URI", "X-ASSET-LIST"] where analysis.dateRanges[index].attributes[name] == place.text(in: storage) {
                analysis.dateRanges[index].attributes[name] = text
                break
            }
        case .sessionData:
            if let index = place.owner { analysis.sessionData[index].uri = text }
        case .sessionKey:
            if let index = place.owner { analysis.sessionKeys[index].uri = text }
        case .steering:
            analysis.contentSteering?.serverURI = text
        }
    }

    private func reference(atPlace index: Int, resolver: URIResolver) -> URIReference {
        let place = analysis.places[index]
        let text = place.text(in: storage)
        return URIReference(facts: facts(ofPlace: index), original: text, absoluteString: resolver.resolve(text),
                            rendition: place.renditionIndex.map { analysis.renditions[$0] })
    }

    /// Read field by field, and the pathway looked up only for the kinds that have one: a copy of the
    /// place (its text retained) or a call for every URI costs more.
    private func facts(ofPlace index: Int) -> URIPlaceFacts {
        let kind = analysis.places[index].kind
        let pathway = kind == .variant || kind == .iFrameVariant || kind == .rendition ? pathway(of: analysis.places[index]) : nil
        return URIPlaceFacts(
            kind: kind, variantIndex: analysis.places[index].variantIndex, renditionIndex: analysis.places[index].renditionIndex,
            msn: analysis.places[index].msn, partIndex: analysis.places[index].partIndex, pathway: pathway,
            line: analysis.places[index].lineIndex + 1)
    }

    private func pathway(of place: URIPlace) -> String? {
        switch place.kind {
        case .variant: place.variantIndex.flatMap { analysis.variants[$0].pathwayID }
        case .iFrameVariant: place.variantIndex.flatMap { analysis.iFrameVariants[$0].attributes["PATHWAY-ID"] }
        case .rendition: place.renditionIndex.flatMap { analysis.renditions[$0].pathway(among: analysis.variants) }
        default: nil
        }
    }
}
