/// How a line ended in the input. Kept per line so the writer reproduces it.
enum LineTerminator: UInt8, Sendable {
    case none, lf, crlf

    var bytes: [UInt8] {
        switch self {
        case .none: return []
        case .lf: return [0x0A]
        case .crlf: return [0x0D, 0x0A]
        }
    }
}

/// One line: a byte range in the playlist's storage buffer (without its terminator).
/// Edited lines point at bytes appended to the buffer; untouched lines point at the input.
struct LineRecord: Sendable {
    var start: Int
    var end: Int
    var terminator: LineTerminator
}

enum LineScanner {
    /// Splits on LF; a CR right before the LF is part of the terminator. A lone CR stays
    /// in the line's content so that it is written back unchanged.
    static func split(_ bytes: [UInt8]) -> [LineRecord] {
        var lines: [LineRecord] = []
        lines.reserveCapacity(bytes.count / 24 + 4)
        bytes.withUnsafeBufferPointer { buffer in
            var start = 0
            var index = 0
            let count = buffer.count
            while index < count {
                if buffer[index] == 0x0A {
                    if index > start && buffer[index - 1] == 0x0D {
                        lines.append(LineRecord(start: start, end: index - 1, terminator: .crlf))
                    } else {
                        lines.append(LineRecord(start: start, end: index, terminator: .lf))
                    }
                    start = index + 1
                }
                index += 1
            }
            if start < count {
                lines.append(LineRecord(start: start, end: count, terminator: .none))
            }
        }
        return lines
    }
}
