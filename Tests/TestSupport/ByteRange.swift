import Foundation

/// A single-range `Range: bytes=…` request resolved against a body length (RFC 9110 §14).
enum ByteRange: Equatable {
    case full
    case partial(ClosedRange<Int>)
    case unsatisfiable

    /// Multiple ranges and malformed headers are ignored (full body), as RFC 9110 allows.
    static func resolve(_ header: String?, length: Int) -> ByteRange {
        guard let header else { return .full }
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes="), !trimmed.contains(",") else { return .full }
        let spec = trimmed.dropFirst("bytes=".count)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .full }
        let first = parts[0].trimmingCharacters(in: .whitespaces)
        let last = parts[1].trimmingCharacters(in: .whitespaces)
        if first.isEmpty {
            guard let suffix = Int(last), suffix >= 0 else { return .full }
            guard suffix > 0, length > 0 else { return .unsatisfiable }
            return .partial(max(length - suffix, 0)...(length - 1))
        }
        guard let start = Int(first), start >= 0 else { return .full }
        guard start < length else { return .unsatisfiable }
        if last.isEmpty { return .partial(start...(length - 1)) }
        guard let end = Int(last), end >= start else { return .full }
        return .partial(start...min(end, length - 1))
    }
}
