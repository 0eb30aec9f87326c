/// Reads one carriage's text as an RFC 8941 dictionary: `key[=value][;params], …`. Unlike RFC 8941,
/// which fails a whole field on the first error, a bad member costs only itself: the finding is
/// noted and reading resumes after the next comma outside a string. Work and memory are bounded by
/// the input's length (already capped) and the key and list limits.
struct DictionaryParser {
    struct Member {
        var key: String
        var value: CMCDValue
        var uppercase: Bool
    }

    private let bytes: [UInt8]
    private let carriage: CMCDCarriage
    private let maxListItems: Int
    private let maxKeys: Int
    private var index = 0

    /// Parses `bytes`, taking at most `keyBudget` members (and lowering it by as many).
    static func parse(
        _ bytes: [UInt8], carriage: CMCDCarriage, keyBudget: inout Int, limits: CMCDLimits, findings: inout FindingList
    ) -> [Member] {
        var parser = DictionaryParser(bytes: bytes, carriage: carriage, limits: limits)
        return parser.members(keyBudget: &keyBudget, findings: &findings)
    }

    private init(bytes: [UInt8], carriage: CMCDCarriage, limits: CMCDLimits) {
        self.bytes = bytes
        self.carriage = carriage
        self.maxListItems = limits.maxListItems
        self.maxKeys = limits.maxKeys
    }

    private mutating func members(keyBudget: inout Int, findings: inout FindingList) -> [Member] {
        var members: [Member] = []
        skipWhitespace()
        while index < bytes.count {
            let start = index
            var key: String?
            do throws(CMCDProblem) {
                let (name, uppercase) = try readKey()
                key = name
                let value: CMCDValue
                if peek == UInt8(ascii: "=") {
                    index += 1
                    value = try readMemberValue()
                } else {
                    value = .item(CMCDItem(.boolean(true), parameters: try readParameters()))
                }
                // A member ends at a comma or the end: `ot=v?` is not `ot=v`.
                skipWhitespace()
                if let next = peek, next != UInt8(ascii: ",") { throw problem(.comma) }
                guard keyBudget > 0 else {
                    findings.add(carriage, .tooManyKeys(limit: maxKeys))
                    return members
                }
                keyBudget -= 1
                members.append(Member(key: name, value: value, uppercase: uppercase))
            } catch {
                findings.add(key: key, carriage, error)
                skipMember(from: start)
            }
            guard index < bytes.count else { break }
            index += 1  // the comma
            skipWhitespace()
            if index >= bytes.count { findings.add(carriage, .trailingComma) }
        }
        return members
    }

    // MARK: - Grammar

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// key = ( lcalpha / "*" ) *( lcalpha / DIGIT / "_" / "-" / "." / "*" ); upper case is read
    /// too (CMCD's own v1 example spells a vendor key so) and reported.
    private mutating func readKey() throws(CMCDProblem) -> (String, Bool) {
        guard let first = peek, Self.isAlpha(first) || first == UInt8(ascii: "*") else { throw problem(.key) }
        let start = index
        var uppercase = false
        while let byte = peek, Self.isAlpha(byte) || Self.isDigit(byte) || Self.keyPunctuation.contains(byte) {
            if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { uppercase = true }
            index += 1
        }
        return (String(decoding: bytes[start..<index], as: UTF8.self), uppercase)
    }

    private mutating func readMemberValue() throws(CMCDProblem) -> CMCDValue {
        if peek == UInt8(ascii: "(") { return try readInnerList() }
        return .item(try readItem())
    }

    private mutating func readItem() throws(CMCDProblem) -> CMCDItem {
        let value = try readBareItem()
        return CMCDItem(value, parameters: try readParameters())
    }

    private mutating func readInnerList() throws(CMCDProblem) -> CMCDValue {
        index += 1  // "("
        var items: [CMCDItem] = []
        while true {
            skipSpaces()
            guard let byte = peek else { throw problem(.listSeparator) }
            if byte == UInt8(ascii: ")") {
                index += 1
                return .innerList(items, parameters: try readParameters())
            }
            guard items.count < maxListItems else { throw .tooManyListItems(limit: maxListItems) }
            items.append(try readItem())
            guard let next = peek, next == UInt8(ascii: " ") || next == UInt8(ascii: ")") else { throw problem(.listSeparator) }
        }
    }

    private mutating func readParameters() throws(CMCDProblem) -> [CMCDParameter] {
        var parameters: [CMCDParameter] = []
        while peek == UInt8(ascii: ";") {
            index += 1
            skipSpaces()
            guard parameters.count < maxListItems else { throw .tooManyListItems(limit: maxListItems) }
            let (key, _) = try readKey()
            var value = CMCDBareItem.boolean(true)
            if peek == UInt8(ascii: "=") {
                index += 1
                value = try readBareItem()
            }
            parameters.append(CMCDParameter(key: key, value: value))
        }
        return parameters
    }

    private mutating func readBareItem() throws(CMCDProblem) -> CMCDBareItem {
        guard let byte = peek else { throw problem(.value) }
        switch byte {
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try readNumber()
        case UInt8(ascii: "\""): return try readString()
        case UInt8(ascii: "?"): return try readBoolean()
        case UInt8(ascii: ":"): return try readByteSequence()
        case _ where Self.isAlpha(byte) || byte == UInt8(ascii: "*"): return readToken()
        default: throw problem(.value)
        }
    }

    /// RFC 8941 §4.2.4: at most 15 digits for an integer; 12 before and 1–3 after the point for a decimal.
    private mutating func readNumber() throws(CMCDProblem) -> CMCDBareItem {
        let start = index
        let negative = peek == UInt8(ascii: "-")
        if negative { index += 1 }
        guard let first = peek, Self.isDigit(first) else { throw problem(.digit) }
        var integerDigits = 0, fractionDigits = 0, isDecimal = false
        while let byte = peek {
            if Self.isDigit(byte) {
                if isDecimal { fractionDigits += 1 } else { integerDigits += 1 }
            } else if byte == UInt8(ascii: "."), !isDecimal {
                guard integerDigits <= 12 else { throw .numberTooLong(offset: start) }
                isDecimal = true
            } else {
                break
            }
            index += 1
            if integerDigits > 15 || fractionDigits > 3 { throw .numberTooLong(offset: start) }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isDecimal {
            guard fractionDigits > 0 else { throw problem(.digit) }
            return .decimal(Double(text) ?? 0)
        }
        return .integer(Int(text) ?? 0)
    }

    private mutating func readString() throws(CMCDProblem) -> CMCDBareItem {
        let opening = index
        index += 1
        var text: [UInt8] = []
        while let byte = peek {
            index += 1
            switch byte {
            case UInt8(ascii: "\\"):
                guard let escaped = peek, escaped == UInt8(ascii: "\"") || escaped == UInt8(ascii: "\\") else {
                    throw .badEscape(offset: index - 1)
                }
                text.append(escaped)
                index += 1
            case UInt8(ascii: "\""):
                return .string(String(decoding: text, as: UTF8.self))
            case 0x20..<0x7F:
                text.append(byte)
            case 0x80...:
                throw .nonASCII(offset: index - 1)
            default:
                throw .unexpected(character: byte, offset: index - 1, expected: .stringCharacter)
            }
        }
        throw .unterminatedString(offset: opening)
    }

    /// token = ( ALPHA / "*" ) *( tchar / ":" / "/" )
    private mutating func readToken() -> CMCDBareItem {
        let start = index
        index += 1
        while let byte = peek, Self.isAlpha(byte) || Self.isDigit(byte) || Self.tokenPunctuation.contains(byte) { index += 1 }
        return .token(String(decoding: bytes[start..<index], as: UTF8.self))
    }

    private mutating func readBoolean() throws(CMCDProblem) -> CMCDBareItem {
        index += 1
        guard let digit = peek, digit == UInt8(ascii: "0") || digit == UInt8(ascii: "1") else { throw problem(.booleanDigit) }
        index += 1
        return .boolean(digit == UInt8(ascii: "1"))
    }

    private mutating func readByteSequence() throws(CMCDProblem) -> CMCDBareItem {
        index += 1
        let start = index
        while let byte = peek, Self.isAlpha(byte) || Self.isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "=") {
            index += 1
        }
        guard peek == UInt8(ascii: ":") else { throw problem(.byteSequence) }
        index += 1
        return .bytes(String(decoding: bytes[start..<index - 1], as: UTF8.self))
    }

    // MARK: - Recovery and helpers

    /// Moves to the next comma that is not inside a string (or the end), reading from `start`.
    private mutating func skipMember(from start: Int) {
        var inString = false
        var position = start
        while position < bytes.count {
            let byte = bytes[position]
            if inString {
                if byte == UInt8(ascii: "\\") { position += 1 } else if byte == UInt8(ascii: "\"") { inString = false }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: ",") {
                break
            }
            position += 1
        }
        index = min(max(position, index), bytes.count)
    }

    /// The problem at the current byte: the byte that was not what was expected, or the end.
    private func problem(_ expected: CMCDExpectation) -> CMCDProblem {
        guard index < bytes.count else { return .unexpectedEnd(offset: index, expected: expected) }
        let byte = bytes[index]
        if byte >= 0x80 { return .nonASCII(offset: index) }
        return .unexpected(character: byte, offset: index, expected: expected)
    }

    /// Optional white space around members: spaces in a query (RFC 8941 §4.2.2), spaces and tabs in a header.
    private mutating func skipWhitespace() {
        while let byte = peek, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { index += 1 }
    }

    private mutating func skipSpaces() {
        while peek == UInt8(ascii: " ") { index += 1 }
    }

    private static func isAlpha(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static let keyPunctuation: Set<UInt8> = Set("_-.*".utf8)
    private static let tokenPunctuation: Set<UInt8> = Set("!#$%&'*+-.^_`|~:/".utf8)
}

/// A syntax problem is thrown from inside the grammar to the member being read, which notes it.
extension CMCDProblem: Error {}
