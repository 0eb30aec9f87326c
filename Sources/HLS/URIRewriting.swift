/// URI rewriting: the proxy points every URI at itself.
extension Playlist {
    /// Every URI-bearing place in document order, as `rewriteURIs` would present it.
    public var uriReferences: [URIReference] {
        let resolver = URIResolver(base: url)
        return analysis.places.map { reference(for: $0, resolver: resolver) }
    }

    /// Calls `transform` for every URI-bearing place (URI lines and the URI attributes of
    /// EXT-X-MEDIA, I-FRAME-STREAM-INF, KEY, SESSION-KEY, SESSION-DATA, MAP, PART,
    /// PRELOAD-HINT, RENDITION-REPORT, CONTENT-STEERING SERVER-URI and DATERANGE
    /// X-ASSET-URI / X-ASSET-LIST). Returning nil keeps the original text. Only the URI text
    /// changes; the rest of each line keeps its bytes. A `"` or line break in the new text is
    /// percent-encoded so it cannot break the line.
    public mutating func rewriteURIs(_ transform: (URIReference) -> String?) {
        let resolver = URIResolver(base: url)
        var replacements: [(place: URIPlace, text: [UInt8])] = []
        for place in analysis.places {
            guard let newText = transform(reference(for: place, resolver: resolver)) else { continue }
            let bytes = Self.safeURIBytes(newText)
            if bytes.elementsEqual(storage[place.start..<place.end]) { continue }
            replacements.append((place, bytes))
        }
        guard !replacements.isEmpty else { return }
        // New line contents go to one side buffer appended once: appending slices of
        // `storage` to itself would copy the whole buffer each time.
        let base = storage.count
        var added: [UInt8] = []
        added.reserveCapacity(replacements.count * 64)
        var index = 0
        while index < replacements.count {
            let lineIndex = replacements[index].place.lineIndex
            var group = [replacements[index]]
            index += 1
            while index < replacements.count && replacements[index].place.lineIndex == lineIndex {
                group.append(replacements[index])
                index += 1
            }
            if group.count > 1 { group.sort { $0.place.start < $1.place.start } }
            let record = lines[lineIndex]
            let newStart = base + added.count
            var position = record.start
            for item in group where item.place.start >= position {
                added.append(contentsOf: storage[position..<item.place.start])
                added.append(contentsOf: item.text)
                position = item.place.end
            }
            added.append(contentsOf: storage[position..<record.end])
            lines[lineIndex].start = newStart
            lines[lineIndex].end = base + added.count
        }
        storage.append(contentsOf: added)
        reanalyze()
    }

    private func reference(for place: URIPlace, resolver: URIResolver) -> URIReference {
        URIReference(original: place.text, absoluteString: resolver.resolve(place.text), kind: place.kind,
                     variantIndex: place.variantIndex,
                     rendition: place.renditionIndex.map { analysis.renditions[$0] },
                     msn: place.msn, partIndex: place.partIndex, line: place.lineIndex + 1)
    }

    private static func safeURIBytes(_ text: String) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case 0x22: output.append(contentsOf: [0x25, 0x32, 0x32])
            case 0x0A: output.append(contentsOf: [0x25, 0x30, 0x41])
            case 0x0D: output.append(contentsOf: [0x25, 0x30, 0x44])
            default: output.append(byte)
            }
        }
        return output
    }
}
