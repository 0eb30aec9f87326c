/// Minimal gzip encoder using deflate "stored" blocks: valid gzip any decoder accepts, with no
/// compression library needed. Enough to prove a client decodes Content-Encoding: gzip.
enum Gzip {
    static func encode(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]
        var offset = 0
        repeat {
            let count = min(65_535, data.count - offset)
            let isLast = offset + count == data.count
            out.append(isLast ? 1 : 0)
            out.append(contentsOf: littleEndian16(UInt16(count)))
            out.append(contentsOf: littleEndian16(~UInt16(count)))
            out.append(contentsOf: data[offset..<(offset + count)])
            offset += count
        } while offset < data.count
        out.append(contentsOf: littleEndian32(crc32(data)))
        out.append(contentsOf: littleEndian32(UInt32(truncatingIfNeeded: data.count)))
        return out
    }

    private static func littleEndian16(_ value: UInt16) -> [UInt8] {
        [UInt8(value & 0xff), UInt8(value >> 8)]
    }

    private static func littleEndian32(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8((value >> (8 * $0)) & 0xff) }
    }

    private static let table: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        return crc
    }

    static func crc32(_ data: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xffff_ffff
        for byte in data { crc = table[Int((crc ^ UInt32(byte)) & 0xff)] ^ (crc >> 8) }
        return crc ^ 0xffff_ffff
    }
}
