/// Taking CMCD off a request before it goes upstream: the `CMCD` query argument and the four headers.
public enum CMCDStrip {
    /// The request target without its `CMCD` arguments. Everything else stays byte for byte: the
    /// other arguments, their order, their encoding, empty arguments, the fragment; so a URL
    /// signature computed over the rest still verifies. A query left empty loses its `?`.
    public static func target(_ target: String) -> String {
        guard let (query, arguments) = CMCDQuery.arguments(of: target) else { return target }
        let kept = arguments.filter { CMCDQuery.cmcdValue(of: $0) == nil }
        guard kept.count != arguments.count else { return target }
        let questionMark = target.utf8.index(before: query.lowerBound)
        let head = target[..<questionMark], tail = target[query.upperBound...]
        guard !kept.isEmpty else { return String(head + tail) }
        return head + "?" + kept.joined(separator: "&") + tail
    }

    /// Whether a header carries CMCD (any case).
    public static func isCMCDHeader(_ name: String) -> Bool { CMCDHeaderField(headerName: name) != nil }

    /// The headers to drop, as CMCD spells them.
    public static let headerNames: [String] = CMCDHeaderField.allCases.map(\.rawValue)

    /// Which of these headers carry CMCD (the names as given), to drop before the upstream fetch.
    public static func headersToDrop(_ names: [String]) -> [String] { names.filter(isCMCDHeader) }
}
