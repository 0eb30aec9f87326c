import Foundation

/// How a line ended in the input. Kept per line so the writer reproduces it.
enum LineTerminator: UInt8, Sendable {
    case none, lf, crlf
}

/// One line: a byte range in the playlist's storage buffer (without its terminator).
struct LineRecord: Sendable {
    var start: Int
    var end: Int
    var terminator: LineTerminator
}

enum LineScanner {
    /// Splits on LF; a CR right before the LF is part of the terminator. A lone CR stays
    /// in the line's content so that it is written back unchanged.
    static func split(_ bytes: [UInt8]) -> [LineRecord] {
        bytes.withUnsafeBufferPointer { buffer -> [LineRecord] in
            guard let base = buffer.baseAddress, buffer.count > 0 else { return [] }
            let count = buffer.count
            var newlines = 0
            var search = 0
            while search < count, let hit = memchr(base + search, 0x0A, count - search) {
                newlines += 1
                search = base.distance(to: hit.assumingMemoryBound(to: UInt8.self)) + 1
            }
            return [LineRecord](unsafeUninitializedCapacity: newlines + 1) { records, initialized in
                var start = 0
                var written = 0
                while start < count, let hit = memchr(base + start, 0x0A, count - start) {
                    let index = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                    if index > start && buffer[index - 1] == 0x0D {
                        records.initializeElement(at: written, to: LineRecord(start: start, end: index - 1, terminator: .crlf))
                    } else {
                        records.initializeElement(at: written, to: LineRecord(start: start, end: index, terminator: .lf))
                    }
                    written += 1
                    start = index + 1
                }
                if start < count {
                    records.initializeElement(at: written, to: LineRecord(start: start, end: count, terminator: .none))
                    written += 1
                }
                initialized = written
            }
        }
    }
}
