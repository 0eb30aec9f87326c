import Foundation

/// Cuts a single-fragment fMP4 media segment (`styp`, `sidx`, one `moof` + `mdat`, as the
/// bundled media are) into several fragments, one per LL-HLS part.
///
/// A byte range of one `moof`/`mdat` pair is not decodable on its own, so each part gets its
/// own `moof` (same `tfhd`, a `tfdt` at its first sample, a `trun` for its samples) and an
/// `mdat` with its samples' bytes. The first part keeps the segment's `styp`; the `sidx`
/// (which indexes the original single fragment) is dropped. The parts concatenated are the
/// LL segment.
enum FMP4PartSplitter {
    struct Part: Equatable {
        var data: Data
        /// Sum of its sample durations, in seconds.
        var duration: Double
        /// Starts with a sync sample (an IDR for video; every AAC frame is one).
        var independent: Bool
    }

    struct Unsupported: Error, CustomStringConvertible {
        var description: String
    }

    private struct Sample {
        var duration: UInt32
        var size: UInt32
        var flags: UInt32
        var compositionOffset: UInt32?
    }

    /// Splits `segment` into `partCount` parts: sample `i` goes to part
    /// `min(decodeOffset(i) / partTicks, partCount - 1)`, so parts start on the
    /// `partDuration` grid measured from the segment's first decode time and the last part
    /// takes whatever is left. `sequenceBase` numbers the parts' `mfhd` (`sequenceBase + k`).
    static func split(_ segment: Data, timescale: UInt32, partDuration: Double, partCount: Int,
                      sequenceBase: UInt32) throws(Unsupported) -> [Part] {
        let bytes = [UInt8](segment)
        var styp: ArraySlice<UInt8>?
        var moof: Range<Int>?
        var mdat: Range<Int>?
        for box in boxes(bytes, in: 0..<bytes.count) {
            switch box.type {
            case "styp": styp = bytes[box.range]
            case "sidx": break
            case "moof":
                guard moof == nil else { throw Unsupported(description: "more than one moof; already fragmented") }
                moof = box.range
            case "mdat": mdat = box.payload
            default: throw Unsupported(description: "unexpected top-level box \(box.type)")
            }
        }
        guard let moof, let mdat else { throw Unsupported(description: "no moof/mdat") }
        guard let traf = boxes(bytes, in: (moof.lowerBound + 8)..<moof.upperBound).first(where: { $0.type == "traf" }) else {
            throw Unsupported(description: "no traf")
        }
        var tfhd: ArraySlice<UInt8>?
        var baseDecodeTime: UInt64?
        var trun: Range<Int>?
        for box in boxes(bytes, in: traf.payload) {
            switch box.type {
            case "tfhd": tfhd = bytes[box.range]
            case "tfdt":
                let start = box.payload.lowerBound + 4
                baseDecodeTime = bytes[box.payload.lowerBound] == 1 ? read64(bytes, start) : UInt64(read32(bytes, start))
            case "trun": trun = box.range
            default: throw Unsupported(description: "unexpected box \(box.type) in traf")
            }
        }
        guard let tfhd, let baseDecodeTime, let trun else { throw Unsupported(description: "traf lacks tfhd, tfdt or trun") }
        let defaults = try trackFragmentDefaults(Array(tfhd))
        let samples = try parseTrun(bytes, trun, defaults: defaults)
        let trunVersion = bytes[trun.lowerBound + 8]
        let totalSize = samples.reduce(0) { $0 + Int($1.size) }
        guard totalSize == mdat.count else {
            throw Unsupported(description: "trun sizes (\(totalSize)) do not cover the mdat (\(mdat.count))")
        }

        let partTicks = UInt64((partDuration * Double(timescale)).rounded())
        var groups = Array(repeating: [Int](), count: partCount)
        var decodeOffset: UInt64 = 0
        for (index, sample) in samples.enumerated() {
            groups[min(Int(decodeOffset / partTicks), partCount - 1)].append(index)
            decodeOffset += UInt64(sample.duration)
        }
        var parts: [Part] = []
        var sampleOffset = mdat.lowerBound
        var decodeTime = baseDecodeTime
        for (k, group) in groups.enumerated() {
            guard let first = group.first else { throw Unsupported(description: "part \(k) would have no sample") }
            let partSamples = group.map { samples[$0] }
            let size = partSamples.reduce(0) { $0 + Int($1.size) }
            let duration = partSamples.reduce(UInt64(0)) { $0 + UInt64($1.duration) }
            var data = k == 0 ? Data(styp ?? []) : Data()
            data.append(fragment(tfhd: Array(tfhd), trunVersion: trunVersion, sequence: sequenceBase &+ UInt32(k), decodeTime: decodeTime,
                                 samples: partSamples, payload: bytes[sampleOffset..<(sampleOffset + size)]))
            parts.append(Part(data: data, duration: Double(duration) / Double(timescale),
                              independent: samples[first].flags & 0x0001_0000 == 0))
            sampleOffset += size
            decodeTime += duration
        }
        return parts
    }

    private struct Defaults {
        var duration: UInt32?
        var size: UInt32?
        var flags: UInt32?
    }

    private static func trackFragmentDefaults(_ tfhd: [UInt8]) throws(Unsupported) -> Defaults {
        let flags = read32(tfhd, 8) & 0xFF_FFFF
        guard flags & 0x1 == 0 else { throw Unsupported(description: "tfhd has a base-data-offset; expected default-base-is-moof") }
        var offset = 16
        if flags & 0x2 != 0 { offset += 4 }
        var defaults = Defaults()
        if flags & 0x8 != 0 { defaults.duration = read32(tfhd, offset); offset += 4 }
        if flags & 0x10 != 0 { defaults.size = read32(tfhd, offset); offset += 4 }
        if flags & 0x20 != 0 { defaults.flags = read32(tfhd, offset) }
        return defaults
    }

    private static func parseTrun(_ bytes: [UInt8], _ box: Range<Int>, defaults: Defaults) throws(Unsupported) -> [Sample] {
        let flags = read32(bytes, box.lowerBound + 8) & 0xFF_FFFF
        let count = Int(read32(bytes, box.lowerBound + 12))
        var offset = box.lowerBound + 16
        if flags & 0x1 != 0 { offset += 4 }
        var firstFlags: UInt32?
        if flags & 0x4 != 0 { firstFlags = read32(bytes, offset); offset += 4 }
        var samples: [Sample] = []
        for index in 0..<count {
            func field(_ bit: UInt32) -> UInt32? {
                guard flags & bit != 0 else { return nil }
                defer { offset += 4 }
                return read32(bytes, offset)
            }
            let duration = field(0x100) ?? defaults.duration
            let size = field(0x200) ?? defaults.size
            let sampleFlags = field(0x400) ?? (index == 0 ? firstFlags : nil) ?? defaults.flags
            let composition = field(0x800)
            guard offset <= box.upperBound, let duration, let size, let sampleFlags else {
                throw Unsupported(description: "trun sample \(index) lacks a duration, size or flags (and tfhd has no default)")
            }
            samples.append(Sample(duration: duration, size: size, flags: sampleFlags, compositionOffset: composition))
        }
        return samples
    }

    /// `moof` (mfhd, traf: tfhd as given, tfdt v1, trun with every field explicit) and `mdat`.
    private static func fragment(tfhd: [UInt8], trunVersion: UInt8, sequence: UInt32, decodeTime: UInt64, samples: [Sample],
                                 payload: ArraySlice<UInt8>) -> Data {
        let hasComposition = samples.contains { $0.compositionOffset != nil }
        let trunFlags: UInt32 = 0x1 | 0x100 | 0x200 | 0x400 | (hasComposition ? 0x800 : 0)
        // The original version keeps the composition offsets' signedness.
        var trunBody = be32(UInt32(trunVersion) << 24 | trunFlags) + be32(UInt32(samples.count))
        let dataOffsetIndex = trunBody.count
        trunBody += be32(0)
        for sample in samples {
            trunBody += be32(sample.duration) + be32(sample.size) + be32(sample.flags)
            if hasComposition { trunBody += be32(sample.compositionOffset ?? 0) }
        }
        let mfhd = box("mfhd", be32(0) + be32(sequence))
        let tfdt = box("tfdt", be32(1 << 24) + be64(decodeTime))
        var trun = box("trun", trunBody)
        let moofSize = 8 + mfhd.count + 8 + tfhd.count + tfdt.count + trun.count
        let dataOffset = be32(UInt32(moofSize + 8))
        trun.replaceSubrange((8 + dataOffsetIndex)..<(12 + dataOffsetIndex), with: dataOffset)
        let traf = box("traf", tfhd + tfdt + trun)
        return Data(box("moof", mfhd + traf) + box("mdat", Array(payload)))
    }

    private struct Box {
        var type: String
        var range: Range<Int>
        var payload: Range<Int>
    }

    /// The boxes directly inside `range` (32-bit sizes only, as ffmpeg writes media segments).
    private static func boxes(_ bytes: [UInt8], in range: Range<Int>) -> [Box] {
        var result: [Box] = []
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound {
            let size = Int(read32(bytes, offset))
            guard size >= 8, offset + size <= range.upperBound else { break }
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            result.append(Box(type: type, range: offset..<(offset + size), payload: (offset + 8)..<(offset + size)))
            offset += size
        }
        return result
    }

    private static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        be32(UInt32(payload.count + 8)) + Array(type.utf8) + payload
    }

    private static func be32(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
    }

    private static func be64(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) }
    }

    private static func read32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        guard offset >= 0, offset + 4 <= bytes.count else { return 0 }
        return bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func read64(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
        guard offset >= 0, offset + 8 <= bytes.count else { return 0 }
        return bytes[offset..<(offset + 8)].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
