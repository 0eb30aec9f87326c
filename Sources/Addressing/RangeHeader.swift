/// A `Range: bytes=…` request header (RFC 9110 §14.1.2), parsed once for everyone who reads one:
/// the proxy checks it at the edge, the demo and replay origins answer it, HAR import pins a segment
/// by its first byte.
public struct RangeHeader: Equatable, Sendable {
    public enum Spec: Equatable, Sendable {
        /// `first-last` (`last` inclusive) or `first-`.
        case from(Int, through: Int?)
        /// `-count`: the last `count` bytes.
        case suffix(Int)
    }

    public var specs: [Spec]

    /// More ranges than a player ever asks for in one request.
    public static let maxRanges = 16
    /// 10^18 bytes: any real offset, and no sum of two overflows.
    public static let maxDigits = 18

    public enum Parsed: Equatable, Sendable {
        case bytes(RangeHeader)
        /// A unit other than bytes: the origin's business (RFC 9110 §14.2: ignore what is not known).
        case otherUnit
        /// What is wrong, in words for a 400 body.
        case invalid(String)
    }

    public init(specs: [Spec]) { self.specs = specs }

    /// Parses one header value. Unit and whitespace around ranges are read leniently; numbers are not.
    public static func parse(_ value: String) -> Parsed {
        guard !value.isEmpty, value.utf8.count <= 512 else { return .invalid("Range header is empty or longer than 512 bytes") }
        let unitEnd = value.firstIndex(of: "=") ?? value.endIndex
        guard value[..<unitEnd].trimmingSpaces.lowercased() == "bytes" else { return .otherUnit }
        guard unitEnd < value.endIndex else { return .invalid("Range \"\(value.prefix(80))\" has no ranges after \"bytes\"") }
        let texts = value[value.index(after: unitEnd)...].split(separator: ",", omittingEmptySubsequences: false)
        guard texts.count <= maxRanges else {
            return .invalid("Range asks for \(texts.count) ranges; at most \(maxRanges) are accepted")
        }
        var specs: [Spec] = []
        for text in texts {
            let text = text.trimmingSpaces
            guard let dash = text.firstIndex(of: "-") else { return invalid(value, text) }
            let first = text[..<dash], last = text[text.index(after: dash)...]
            switch (number(first), number(last)) {
            case (.some(let start), .some(let end)) where start <= end: specs.append(.from(start, through: end))
            case (.some(let start), nil) where last.isEmpty: specs.append(.from(start, through: nil))
            case (nil, .some(let count)) where first.isEmpty: specs.append(.suffix(count))
            default: return invalid(value, text)
            }
        }
        return .bytes(RangeHeader(specs: specs))
    }

    /// The header when it asks for exactly one byte range; nil otherwise (absent, another unit,
    /// malformed, several ranges), which a server may answer with the whole body.
    public static func single(_ value: String?) -> Spec? {
        guard let value, case .bytes(let header) = parse(value), header.specs.count == 1 else { return nil }
        return header.specs[0]
    }

    /// The first byte asked for by a single `first-…` range.
    public static func firstByte(_ value: String?) -> Int? {
        if case .from(let first, _)? = single(value) { return first }
        return nil
    }

    /// `bytes=first-last` for `length` bytes from `first` (an EXT-X-BYTERANGE), at least one byte.
    /// Wrapping arithmetic: absurd values in a playlist make an odd header, never a crash.
    public static func value(first: Int, length: Int) -> String {
        "bytes=\(first)-\(first &+ max(length, 1) &- 1)"
    }

    /// The value as a key: lowercased, without white space ("bytes=0-99").
    public static func normalized(_ value: String) -> String {
        value.lowercased().filter { !$0.isWhitespace }
    }

    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.count <= maxDigits, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text)
    }

    private static func invalid(_ value: String, _ spec: Substring) -> Parsed {
        .invalid("Range \"\(value.prefix(80))\": \"\(spec.prefix(40))\" is not FIRST-LAST, FIRST- or -SUFFIX with whole numbers of at most \(maxDigits) digits and FIRST ≤ LAST")
    }
}

extension RangeHeader.Spec {
    /// The inclusive byte span within a body of `length` bytes; nil when unsatisfiable (416).
    public func resolved(length: Int) -> ClosedRange<Int>? {
        guard length > 0 else { return nil }
        switch self {
        case .suffix(let count):
            guard count > 0 else { return nil }
            return max(0, length - count)...(length - 1)
        case .from(let first, let last):
            guard first < length else { return nil }
            return first...min(last ?? length - 1, length - 1)
        }
    }

    /// Lies within what a recorded `Content-Range` holds (open and suffix ranges need the full length).
    public func isInside(_ recorded: ContentRange) -> Bool {
        switch self {
        case .from(let first, let last?): return first >= recorded.first && last <= recorded.last
        case .from(let first, nil):
            guard let length = recorded.length else { return false }
            return first >= recorded.first && recorded.last == length - 1
        case .suffix(let count):
            guard let length = recorded.length else { return false }
            return length - count >= recorded.first && recorded.last == length - 1
        }
    }
}

/// A `Content-Range: bytes first-last/length` response header (`length` may be `*`).
public struct ContentRange: Equatable, Sendable {
    public var first: Int
    public var last: Int
    public var length: Int?

    public init(first: Int, last: Int, length: Int?) {
        self.first = first; self.last = last; self.length = length
    }

    public init?(header: String) {
        let value = RangeHeader.normalized(header)
        guard value.hasPrefix("bytes") else { return nil }
        let parts = value.dropFirst("bytes".count).split(separator: "/", maxSplits: 1)
        guard let span = parts.first, let dash = span.firstIndex(of: "-"),
              let first = Int(span[..<dash]), let last = Int(span[span.index(after: dash)...]), first >= 0, last >= first
        else { return nil }
        self.init(first: first, last: last, length: parts.count == 2 ? Int(parts[1]) : nil)
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return text
    }
}
