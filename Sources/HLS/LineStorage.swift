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
    /// `bytes[start..<end]` without the spaces and tabs around it and a CR at its end: a line as the
    /// parse reads it.
    static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> (Int, Int) {
        var start = start
        var end = end
        while start < end && (bytes[start] == 0x20 || bytes[start] == 0x09) { start += 1 }
        while end > start && (bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 || bytes[end - 1] == 0x0D) { end -= 1 }
        return (start, end)
    }

    /// Where a tag's name ends in `bytes[start..<end]`: at its `:` or the line's end.
    static func tagNameEnd(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Int {
        var position = start
        while position < end && bytes[position] != 0x3A { position += 1 }
        return position
    }

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
