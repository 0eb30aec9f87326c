/// A request body read as strict JSON (RFC 8259), keeping the exact bytes of each member of a
/// top-level object: a scenario inside `{"id": …, "scenario": {…}}` reaches the rule validator byte for
/// byte, so its problems are the ones `hlschaos validate` prints for the same text (numbers keep
/// their spelling, a seed keeps all its digits).
struct JSONBody {
    enum Kind: Equatable {
        case object, array, string, number, bool, null

        var words: String {
            switch self {
            case .object: "an object"
            case .array: "a list"
            case .string: "a string"
            case .number: "a number"
            case .bool: "a boolean"
            case .null: "null"
            }
        }
    }

    struct Member {
        var key: String
        var kind: Kind
        /// Byte offsets of the value in the body.
        var range: Range<Int>
        /// The value, when it is a string.
        var string: String?
    }

    struct SyntaxError: Error, Equatable, CustomStringConvertible {
        var line: Int
        var column: Int
        var message: String
        var description: String { "invalid JSON at line \(line), column \(column): \(message)" }
    }

    static let maximumDepth = 200

    let bytes: [UInt8]
    let kind: Kind
    /// The members of a top-level object, in order (duplicates included).
    let members: [Member]

    init(_ bytes: [UInt8]) throws(SyntaxError) {
        var scanner = Scanner(bytes: bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { scanner.position = 3 }
        scanner.skipWhitespace()
        var members: [Member] = []
        let kind = try scanner.value(depth: 0, members: &members)
        scanner.skipWhitespace()
        if scanner.position < bytes.count { throw scanner.error("unexpected text after the end of the document") }
        self.bytes = bytes
        self.kind = kind
        self.members = members
    }

    func member(_ key: String) -> Member? { members.first { $0.key == key } }

    func bytes(of member: Member) -> ArraySlice<UInt8> { bytes[member.range] }

    private struct Scanner {
        let bytes: [UInt8]
        var position = 0

        var current: UInt8? { position < bytes.count ? bytes[position] : nil }

        func error(_ message: String) -> SyntaxError {
            var line = 1, column = 1
            for byte in bytes[..<min(position, bytes.count)] {
                if byte == UInt8(ascii: "\n") { line += 1; column = 1 } else if byte & 0xC0 != 0x80 { column += 1 }
            }
            return SyntaxError(line: line, column: column, message: message)
        }

        mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { position += 1 }
        }

        /// Reads one value; at depth 0 an object's members are collected into `members`.
        mutating func value(depth: Int, members: inout [Member]) throws(SyntaxError) -> Kind {
            guard let byte = current else { throw error("unexpected end of the document") }
            switch byte {
            case UInt8(ascii: "{"):
                try object(depth: depth + 1, members: &members)
                return .object
            case UInt8(ascii: "["):
                try array(depth: depth + 1)
                return .array
            case UInt8(ascii: "\""):
                _ = try string()
                return .string
            case UInt8(ascii: "t"): try literal("true"); return .bool
            case UInt8(ascii: "f"): try literal("false"); return .bool
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                try number()
                return .number
            default:
                throw error("unexpected character \(Self.show(byte))")
            }
        }

        mutating func object(depth: Int, members: inout [Member]) throws(SyntaxError) {
            if depth > JSONBody.maximumDepth { throw error("nesting deeper than \(JSONBody.maximumDepth) levels") }
            position += 1
            skipWhitespace()
            if current == UInt8(ascii: "}") { position += 1; return }
            var ignored: [Member] = []
            while true {
                guard current == UInt8(ascii: "\"") else { throw error("expected a key in double quotes") }
                let key = try string()
                skipWhitespace()
                guard current == UInt8(ascii: ":") else { throw error("expected ':' after the key") }
                position += 1
                skipWhitespace()
                let start = position
                let kind = try value(depth: depth, members: &ignored)
                if depth == 1 {
                    let range = start..<position
                    let text = kind == .string ? Self.decodeString(bytes[range]) : nil
                    members.append(Member(key: key, kind: kind, range: range, string: text))
                }
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): position += 1; skipWhitespace()
                case UInt8(ascii: "}"): position += 1; return
                case nil: throw error("unexpected end of the document inside an object")
                default: throw error("expected ',' or '}'")
                }
            }
        }

        mutating func array(depth: Int) throws(SyntaxError) {
            if depth > JSONBody.maximumDepth { throw error("nesting deeper than \(JSONBody.maximumDepth) levels") }
            position += 1
            skipWhitespace()
            if current == UInt8(ascii: "]") { position += 1; return }
            var ignored: [Member] = []
            while true {
                _ = try value(depth: depth, members: &ignored)
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): position += 1; skipWhitespace()
                case UInt8(ascii: "]"): position += 1; return
                case nil: throw error("unexpected end of the document inside a list")
                default: throw error("expected ',' or ']'")
                }
            }
        }

        /// Reads a string and returns its value.
        mutating func string() throws(SyntaxError) -> String {
            let start = position
            position += 1
            while let byte = current {
                switch byte {
                case UInt8(ascii: "\""):
                    position += 1
                    guard let text = Self.decodeString(bytes[start..<position]) else { throw error("invalid UTF-8 or escape in a string") }
                    return text
                case UInt8(ascii: "\\"):
                    position += 1
                    guard let escape = current else { break }
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                        UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        position += 1
                    case UInt8(ascii: "u"):
                        position += 1
                        for _ in 0..<4 {
                            guard let digit = current, Self.hexValue(digit) != nil else { throw error("invalid \\u escape") }
                            position += 1
                        }
                    default:
                        throw error("invalid escape \\\(Self.show(escape))")
                    }
                case 0x00..<0x20:
                    throw error("control character in a string (write it as an escape)")
                default:
                    position += 1
                }
            }
            throw error("unterminated string")
        }

        mutating func number() throws(SyntaxError) {
            if current == UInt8(ascii: "-") { position += 1 }
            guard let first = current, Self.isDigit(first) else { throw error("expected a digit") }
            position += 1
            if first != UInt8(ascii: "0") { while let byte = current, Self.isDigit(byte) { position += 1 } }
            if current == UInt8(ascii: ".") {
                position += 1
                guard let byte = current, Self.isDigit(byte) else { throw error("expected a digit after '.'") }
                while let byte = current, Self.isDigit(byte) { position += 1 }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                position += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
                guard let byte = current, Self.isDigit(byte) else { throw error("expected a digit in the exponent") }
                while let byte = current, Self.isDigit(byte) { position += 1 }
            }
        }

        mutating func literal(_ word: String) throws(SyntaxError) {
            let expected = Array(word.utf8)
            guard bytes.count - position >= expected.count, bytes[position..<(position + expected.count)].elementsEqual(expected) else {
                throw error("unexpected character \(Self.show(bytes[position]))")
            }
            position += expected.count
        }

        static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

        static func hexValue(_ byte: UInt8) -> UInt16? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt16(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt16(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt16(byte - UInt8(ascii: "A") + 10)
            default: nil
            }
        }

        static func show(_ byte: UInt8) -> String {
            (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "0x" + String(byte, radix: 16)
        }

        /// The value of a quoted string (quotes included in `raw`); nil for invalid UTF-8.
        static func decodeString(_ raw: ArraySlice<UInt8>) -> String? {
            let inner = raw.dropFirst().dropLast()
            guard inner.contains(UInt8(ascii: "\\")) else { return String(validating: inner, as: UTF8.self) }
            var units: [UInt16] = []
            var plain: [UInt8] = []
            var result = ""
            func flushPlain() -> Bool {
                guard !plain.isEmpty else { return true }
                guard let text = String(validating: plain, as: UTF8.self) else { return false }
                result += text
                plain = []
                return true
            }
            func flushUnits() {
                guard !units.isEmpty else { return }
                result += String(decoding: units, as: UTF16.self)
                units = []
            }
            var index = inner.startIndex
            while index < inner.endIndex {
                let byte = inner[index]
                guard byte == UInt8(ascii: "\\") else {
                    flushUnits()
                    plain.append(byte)
                    index += 1
                    continue
                }
                guard flushPlain() else { return nil }
                let escape = inner[index + 1]
                index += 2
                switch escape {
                case UInt8(ascii: "u"):
                    var unit: UInt16 = 0
                    for offset in 0..<4 { unit = unit << 4 | (hexValue(inner[index + offset]) ?? 0) }
                    units.append(unit)
                    index += 4
                    continue
                case UInt8(ascii: "b"): flushUnits(); result += "\u{08}"
                case UInt8(ascii: "f"): flushUnits(); result += "\u{0C}"
                case UInt8(ascii: "n"): flushUnits(); result += "\n"
                case UInt8(ascii: "r"): flushUnits(); result += "\r"
                case UInt8(ascii: "t"): flushUnits(); result += "\t"
                default: flushUnits(); result += String(Character(Unicode.Scalar(escape)))
                }
            }
            flushUnits()
            guard flushPlain() else { return nil }
            return result
        }
    }
}
