import Foundation

/// Moves the timestamps of an fMP4 media segment forward, for the live loop.
///
/// Live fMP4 loops keep increasing decode times instead of restarting at zero: ffmpeg's
/// HLS demuxer silently drops fMP4 fragments whose decode time goes backwards (a whole
/// segment at every loop point), whereas players that honour EXT-X-DISCONTINUITY are
/// fine either way. Patched in place, sizes unchanged: `tfdt` and `sidx` times and the
/// `mfhd` sequence number.
enum FMP4TimeShift {
    /// The media timescale of the (single) track of an init segment, from `mdhd`.
    static func timescale(ofInitSegment data: Data) -> UInt32? {
        let bytes = [UInt8](data)
        var found: UInt32?
        walk(bytes, from: 0, to: bytes.count) { type, start, end in
            guard type == "mdhd", found == nil, start + 12 <= end else { return }
            let offset = start + (bytes[start + 8] == 1 ? 28 : 20)
            guard offset + 4 <= end else { return }
            found = read32(bytes, at: offset)
        }
        return found.flatMap { $0 > 0 ? $0 : nil }
    }

    /// `segment` with its decode/presentation times moved by `seconds` in `timescale` units and
    /// its fragment sequence number moved by `sequenceOffset`. Nil when a field would overflow
    /// or the boxes are not laid out as expected.
    static func shifted(_ segment: Data, bySeconds seconds: Int, timescale: UInt32, sequenceOffset: UInt32) -> Data? {
        var bytes = [UInt8](segment)
        let (ticks, overflow) = UInt64(seconds).multipliedReportingOverflow(by: UInt64(timescale))
        guard !overflow else { return nil }
        var ok = true
        var patchedDecodeTime = false
        walk(bytes, from: 0, to: bytes.count) { type, start, end in
            // Every box patched here is a full box: version byte at +8, fields from +12.
            guard ["tfdt", "mfhd", "sidx"].contains(type) else { return }
            guard start + 12 <= end else { ok = false; return }
            switch type {
            case "tfdt":
                ok = ok && add(ticks, toFieldAt: start + 12, wide: bytes[start + 8] == 1, in: &bytes, end: end)
                patchedDecodeTime = true
            case "mfhd":
                ok = ok && add(UInt64(sequenceOffset), toFieldAt: start + 12, wide: false, in: &bytes, end: end)
            case "sidx":
                // reference_ID, timescale, then earliest_presentation_time (64-bit in version 1).
                guard start + 20 <= end, let sidxScale = read32(bytes, at: start + 16), sidxScale > 0 else {
                    ok = false
                    return
                }
                let (sidxTicks, sidxOverflow) = UInt64(seconds).multipliedReportingOverflow(by: UInt64(sidxScale))
                ok = ok && !sidxOverflow
                    && add(sidxTicks, toFieldAt: start + 20, wide: bytes[start + 8] == 1, in: &bytes, end: end)
            default:
                break
            }
        }
        return ok && patchedDecodeTime ? Data(bytes) : nil
    }

    /// Calls `visit(type, start, end)` for every box, descending into the container boxes
    /// that lead to `tfdt`/`mfhd`/`mdhd`. Stops quietly at a malformed size.
    private static func walk(_ bytes: [UInt8], from start: Int, to end: Int, _ visit: (String, Int, Int) -> Void) {
        var offset = start
        while offset + 8 <= end, let size32 = read32(bytes, at: offset) {
            var size = Int(size32)
            var header = 8
            if size32 == 1 {
                guard let large = read64(bytes, at: offset + 8), large <= UInt64(end - offset) else { return }
                size = Int(large)
                header = 16
            } else if size32 == 0 {
                size = end - offset
            }
            guard size >= header, offset + size <= end else { return }
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            visit(type, offset, offset + size)
            if ["moof", "traf", "moov", "trak", "mdia"].contains(type) {
                walk(bytes, from: offset + header, to: offset + size, visit)
            }
            offset += size
        }
    }

    private static func add(_ amount: UInt64, toFieldAt offset: Int, wide: Bool, in bytes: inout [UInt8], end: Int) -> Bool {
        if wide {
            guard offset + 8 <= end, let value = read64(bytes, at: offset) else { return false }
            let (sum, overflow) = value.addingReportingOverflow(amount)
            guard !overflow else { return false }
            for index in 0..<8 { bytes[offset + index] = UInt8(truncatingIfNeeded: sum >> (56 - 8 * index)) }
        } else {
            guard offset + 4 <= end, let value = read32(bytes, at: offset) else { return false }
            let sum = UInt64(value) + amount
            guard sum <= UInt64(UInt32.max) else { return false }
            for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: sum >> (24 - 8 * index)) }
        }
        return true
    }

    private static func read32(_ bytes: [UInt8], at offset: Int) -> UInt32? {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        return bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func read64(_ bytes: [UInt8], at offset: Int) -> UInt64? {
        guard offset >= 0, offset + 8 <= bytes.count else { return nil }
        return bytes[offset..<(offset + 8)].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
