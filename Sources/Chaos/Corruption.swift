/// Deterministic byte damage for `corrupt`: the same seed and body length always damage the same
/// absolute offsets with the same values, however the body is split into chunks.
public struct Corruption: Sendable, Equatable {
    /// Absolute body offsets that get damaged, ascending and distinct.
    public let offsets: [Int]
    public let seed: UInt64

    /// Used when the body length is not known in advance (no Content-Length): offsets fall in the first MiB.
    public static let assumedLength = 1 << 20

    public init(bytes count: Int, seed: UInt64, bodyLength: Int?) {
        self.seed = seed
        let length = max(0, bodyLength ?? Self.assumedLength)
        let wanted = max(0, min(count, length))
        if wanted == length {
            offsets = Array(0..<length)
            return
        }
        var chosen = Set<Int>()
        var counter: UInt64 = 0
        while chosen.count < wanted {
            let draw = StableHash.splitMix(seed &+ 0x632B_E59B_D9B4_E019 &* counter)
            chosen.insert(Int(draw % UInt64(length)))
            counter &+= 1
        }
        offsets = chosen.sorted()
    }

    public init(_ action: WireAction, bodyLength: Int?) {
        if case let .corrupt(count, seed) = action {
            self.init(bytes: count, seed: seed, bodyLength: bodyLength)
        } else {
            self.init(bytes: 0, seed: 0, bodyLength: 0)
        }
    }

    /// The non-zero XOR mask for an offset, so a damaged byte always differs from the original.
    func mask(at offset: Int) -> UInt8 {
        let value = UInt8(truncatingIfNeeded: StableHash.splitMix(seed ^ UInt64(offset) &* 0x9E37_79B9_7F4A_7C15))
        return value == 0 ? 0xA5 : value
    }

    /// Offsets falling inside the chunk that starts at absolute offset `start` and has `count` bytes.
    func offsets(inChunkAt start: Int, count: Int) -> ArraySlice<Int> {
        let end = start + count
        let low = offsets.partitioningIndex { $0 >= start }
        let high = offsets.partitioningIndex { $0 >= end }
        return offsets[low..<max(low, high)]
    }

    /// Damages `chunk`, whose first byte is at absolute body offset `start`.
    public func damage(_ chunk: inout [UInt8], at start: Int) {
        for offset in offsets(inChunkAt: start, count: chunk.count) {
            chunk[offset - start] ^= mask(at: offset)
        }
    }

    /// Same, in place in a raw buffer (e.g. a NIO ByteBuffer's writable view).
    public func damage(_ buffer: UnsafeMutableRawBufferPointer, at start: Int) {
        for offset in offsets(inChunkAt: start, count: buffer.count) {
            buffer[offset - start] ^= mask(at: offset)
        }
    }
}

extension Array where Element == Int {
    /// First index whose element satisfies `predicate`, for a predicate false-then-true over the array.
    func partitioningIndex(where predicate: (Int) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if predicate(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
