/// Something wrong with a request's CMCD: which key (when there is one), which carriage, what.
/// Findings never fail a request; the words for people are made here, from the typed problem.
public struct CMCDFinding: Sendable, Hashable, CustomStringConvertible {
    public var key: String?
    public var carriage: CMCDCarriage
    public var problem: CMCDProblem

    public init(key: String? = nil, carriage: CMCDCarriage, problem: CMCDProblem) {
        self.key = key
        self.carriage = carriage
        self.problem = problem
    }

    /// One sentence: where, and what is wrong.
    public var description: String {
        let subject = key.map { "\($0) in \(carriage)" } ?? carriage.description.capitalizedFirst
        return subject + ": " + problem.words(key: key)
    }
}

/// What can be wrong. Syntax problems cost the member they are in (the parser resumes at the next
/// comma); meaning problems cost the typed value (`dropsValue`) or only say the sender strayed.
public enum CMCDProblem: Sendable, Hashable {
    // Limits
    case carriageTooLong(length: Int, limit: Int)
    case tooManyKeys(limit: Int)
    case tooManyListItems(limit: Int)
    case moreFindings(count: Int)
    // Syntax (RFC 8941 dictionary, percent-encoding)
    case unexpected(character: UInt8, offset: Int, expected: CMCDExpectation)
    case unexpectedEnd(offset: Int, expected: CMCDExpectation)
    case nonASCII(offset: Int)
    case unterminatedString(offset: Int)
    case badEscape(offset: Int)
    case numberTooLong(offset: Int)
    case trailingComma
    case badPercentEncoding(offset: Int)
    case repeatedQueryArgument
    // Meaning (the key registry)
    case repeatedKey(firstIn: CMCDCarriage)
    case wrongType(expected: CMCDKey.Shape, found: CMCDValueType)
    /// The value as written.
    case negative(String)
    case unknownToken(String)
    case stringTooLong(length: Int, limit: Int)
    case unknownKey
    case uppercaseKey
    case keyNotInVersion(Int)
    case unsupportedVersion(Int)
    case wrongHeader(expected: CMCDHeaderField)
    case shapeOfOtherVersion(version: Int)
    case falseBoolean
    case unknownParameter(String)
    case reportKeyOnRequest

    /// The key's typed value is not kept (its raw pair still is).
    public var dropsValue: Bool {
        switch self {
        case .wrongType, .negative, .unknownToken: true
        default: false
        }
    }

    public func words(key: String?) -> String {
        let name = key ?? "the value"
        switch self {
        case .carriageTooLong(let length, let limit):
            return "\(length) bytes, more than the \(limit) read per carriage; ignored"
        case .tooManyKeys(let limit):
            return "more than \(limit) keys; the rest are ignored"
        case .tooManyListItems(let limit):
            return "more than \(limit) items or parameters in one value; the key is ignored"
        case .moreFindings(let count):
            return "\(count) more findings not listed"
        case .unexpected(let character, let offset, let expected):
            return "unexpected \(Self.show(character)) at byte \(offset), expected \(expected.rawValue)"
        case .unexpectedEnd(let offset, let expected):
            return "the text ends at byte \(offset), expected \(expected.rawValue)"
        case .nonASCII(let offset):
            return "a byte outside ASCII at byte \(offset); CMCD is ASCII (a string is escaped, not encoded)"
        case .unterminatedString(let offset):
            return "the string opened at byte \(offset) has no closing quote"
        case .badEscape(let offset):
            return "backslash at byte \(offset) escapes neither \\\" nor \\\\"
        case .numberTooLong(let offset):
            return "the number at byte \(offset) has more digits than RFC 8941 allows (15, or 12.3 for a decimal)"
        case .trailingComma:
            return "ends with a comma"
        case .badPercentEncoding(let offset):
            return "'%' at byte \(offset) is not followed by two hex digits; kept as it is"
        case .repeatedQueryArgument:
            return "sent more than once; only the first is read"
        case .repeatedKey(let first):
            return "\(name) already came in \(first); the later value is used"
        case .wrongType(let expected, let found):
            return "\(name) should be \(expected.words), not a \(found.rawValue)"
        case .negative(let value):
            return "\(name)=\(value) is negative"
        case .unknownToken(let token):
            if let key, let known = CMCDKey(rawValue: key), case .token(let allowed) = known.shape {
                return "\(key)=\(token) is not one of \(allowed.joined(separator: ", "))"
            }
            return "unknown token \(token)"
        case .stringTooLong(let length, let limit):
            return "\(name) is \(length) characters, more than the \(limit) allowed"
        case .unknownKey:
            return "\(name) is not a CMCD key, and a vendor's own key needs a hyphenated prefix (com.example-\(name))"
        case .uppercaseKey:
            return "keys are lowercase (RFC 8941)"
        case .keyNotInVersion(let version):
            let known = key.flatMap(CMCDKey.init(rawValue:))
            if known?.versions == .sinceV2 { return "\(name) is a version 2 key, but the request says version \(version)\(version == 1 ? " (no v=2)" : "")" }
            return "\(name) is not a key of version \(version)"
        case .unsupportedVersion(let version):
            return "version \(version) is unknown; read as version 2"
        case .wrongHeader(let expected):
            return "\(name) belongs in \(expected.rawValue)"
        case .shapeOfOtherVersion(let version):
            return version >= 2
                ? "version 2 writes \(name) as an inner list, \(name)=(…)"
                : "version 1 writes \(name) as one integer, not a list"
        case .falseBoolean:
            return "a false \(name) is sent by leaving the key out"
        case .unknownParameter(let parameter):
            return "parameter ;\(parameter) is not an object type"
        case .reportKeyOnRequest:
            return "\(name) belongs to v2 event and response reports, not to a request"
        }
    }

    static func show(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        if byte == 0x20 { return "space" }
        return "byte 0x" + String(byte, radix: 16, uppercase: true)
    }
}

/// What the parser was looking for when it met something else.
public enum CMCDExpectation: String, Sendable, Hashable {
    case key = "a key (lowercase letter or '*', then letters, digits, '_', '-', '.', '*')"
    case value = "a value (integer, decimal, \"string\", token, ?0/?1, or an inner list)"
    case comma = "',' between keys"
    case listSeparator = "a space or ')' in an inner list"
    case digit = "a digit"
    case booleanDigit = "0 or 1 after '?'"
    case byteSequence = "base64 and ':' closing a byte sequence"
    case stringCharacter = "printable ASCII in a string"
}

extension CMCDKey.Shape {
    var words: String {
        switch self {
        case .integer: "an integer"
        case .decimal: "a decimal"
        case .string: "a quoted string"
        case .token(let allowed): "a token (\(allowed.joined(separator: ", ")))"
        case .boolean: "the key alone (true)"
        case .typedIntegers: "an inner list of integers, (3000;v 128;a), or one integer (v1)"
        case .stringList: "an inner list of strings, (\"a\" \"b\")"
        case .nextObjects: "an inner list of quoted paths (v2) or one quoted path (v1)"
        }
    }
}

extension String {
    var capitalizedFirst: String {
        guard let first else { return self }
        return first.uppercased() + dropFirst()
    }
}
