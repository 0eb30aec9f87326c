extension WireAction: CustomStringConvertible {
    /// The action in a few words, as logs, records and the dashboard show it ("status 503",
    /// "throttle 100000 B/s", "reset after 1000 bytes").
    public var description: String {
        switch self {
        case .status(let code, _, _): "status \(code)"
        case .hang(let duration): duration.map { "hang \($0.seconds)s" } ?? "hang"
        case .throttle(let rate): "throttle \(rate) B/s"
        case .stall(let after, let duration): "stall \(duration.seconds)s after \(after) bytes"
        case .reset(.beforeHeaders): "reset before headers"
        case .reset(.afterBytes(let count)): "reset after \(count) bytes"
        case .truncate(.afterBytes(let count)): "truncate after \(count) bytes"
        case .truncate(.fraction(let fraction)): "truncate at \(fraction) of the body"
        case .corrupt(let bytes, _): "corrupt \(bytes) bytes"
        case .contentType(let type): "content-type \(type)"
        case .redirect(let status, _, true): "redirect \(status) loop"
        case .redirect(let status, let hops, false): "redirect \(status) × \(hops)"
        case .rejectRanges: "reject ranges (501)"
        }
    }
}
