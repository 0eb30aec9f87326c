import NIOHTTP1

/// The client's `Range` header is forwarded to the origin and drives byte-range rules, so its
/// numbers are checked at the edge: a malformed or overflowing range is the client's mistake,
/// answered with 400 and a message, not passed on.
enum RangeHeaderCheck {
    /// More ranges than a player ever asks for in one request.
    static let maxRanges = 16
    /// 10^18 bytes: any real offset, and no sum of two overflows.
    static let maxDigits = 18

    /// nil when the request has no Range header or a valid one; otherwise what is wrong.
    static func problem(in headers: HTTPHeaders) -> String? {
        let values = headers["range"]
        guard !values.isEmpty else { return nil }
        guard values.count == 1 else { return "a request may carry one Range header, this one has \(values.count)" }
        let value = values[0]
        guard !value.isEmpty, value.utf8.count <= 512 else {
            return "Range header is empty or longer than 512 bytes"
        }
        let unitEnd = value.firstIndex(of: "=") ?? value.endIndex
        let unit = value[..<unitEnd].trimmingSpaces
        // Other units are the origin's business (RFC 9110 14.2: it ignores what it does not know).
        guard unit.lowercased() == "bytes" else { return nil }
        guard unitEnd < value.endIndex else { return "Range \"\(value.prefix(80))\" has no ranges after \"bytes\"" }
        let specs = value[value.index(after: unitEnd)...].split(separator: ",", omittingEmptySubsequences: false)
        guard specs.count <= maxRanges else { return "Range asks for \(specs.count) ranges; at most \(maxRanges) are accepted" }
        for spec in specs {
            let spec = spec.trimmingSpaces
            guard let dash = spec.firstIndex(of: "-") else { return invalid(value, spec) }
            let first = spec[..<dash], last = spec[spec.index(after: dash)...]
            switch (number(first), number(last)) {
            case (.some(let start), .some(let end)) where start <= end: continue
            case (.some, nil) where last.isEmpty: continue
            case (nil, .some) where first.isEmpty: continue
            default: return invalid(value, spec)
            }
        }
        return nil
    }

    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.count <= maxDigits, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text)
    }

    private static func invalid(_ value: String, _ spec: Substring) -> String {
        "Range \"\(value.prefix(80))\": \"\(spec.prefix(40))\" is not FIRST-LAST, FIRST- or -SUFFIX with whole numbers of at most \(maxDigits) digits and FIRST ≤ LAST"
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
