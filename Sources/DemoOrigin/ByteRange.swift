import Foundation

/// A single `Range: bytes=…` request header, resolved against a body length.
enum ByteRange: Equatable {
    /// No usable Range header (absent, malformed, multi-range or not bytes): serve everything.
    case whole
    /// Serve `lower...upper` (inclusive) with 206.
    case slice(lower: Int, upper: Int)
    /// Well-formed but outside the body: 416.
    case unsatisfiable

    /// RFC 9110 §14.1.2: `a-b`, `a-` and `-suffix`. Malformed values are ignored (200), as
    /// servers may; a multi-range request also gets the whole body, not multipart.
    static func resolve(header: String?, length: Int) -> ByteRange {
        guard let header else { return .whole }
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes=") else { return .whole }
        let spec = trimmed.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
        let first = spec[..<dash].trimmingCharacters(in: .whitespaces)
        let last = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        guard first.allSatisfy(\.isASCIIDigit), last.allSatisfy(\.isASCIIDigit) else { return .whole }
        if first.isEmpty {
            guard let suffix = Int(last) else { return .whole }
            guard suffix > 0, length > 0 else { return .unsatisfiable }
            return .slice(lower: max(0, length - suffix), upper: length - 1)
        }
        guard let lower = Int(first) else { return .whole }
        let requestedUpper: Int
        if last.isEmpty {
            requestedUpper = length - 1
        } else {
            guard let value = Int(last) else { return .whole }
            guard value >= lower else { return .whole }
            requestedUpper = value
        }
        guard lower < length else { return .unsatisfiable }
        return .slice(lower: lower, upper: min(requestedUpper, length - 1))
    }
}

private extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
