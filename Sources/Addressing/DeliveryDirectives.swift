/// The LL-HLS Delivery Directives of a playlist request (rfc8216bis §6.2.5): `_HLS_msn`,
/// `_HLS_part` and `_HLS_skip` from its query string. Other query parameters are ignored.
/// The demo origin answers them; the proxy gives a blocking reload (`_HLS_msn`) the time the
/// origin may hold it.
public struct DeliveryDirectives: Equatable, Sendable {
    public var msn: Int?
    public var part: Int?
    /// `_HLS_skip=YES` or `v2`.
    public var skip = false

    public init(msn: Int? = nil, part: Int? = nil, skip: Bool = false) {
        self.msn = msn
        self.part = part
        self.skip = skip
    }

    public struct Invalid: Error, Equatable {
        public var reason: String
    }

    /// A blocking playlist reload: the request asks for a segment or part not yet published
    /// (rfc8216bis 6.2.5.2).
    public var asksToBlock: Bool { msn != nil }

    /// `target` without its `_HLS_msn`, `_HLS_part` and `_HLS_skip` parameters (others kept, in
    /// order); the `?` goes when nothing is left.
    public static func removed(from target: String) -> String {
        guard let question = target.firstIndex(of: "?") else { return target }
        let path = target[..<question]
        let query = target[target.index(after: question)...]
        let kept = query.split(separator: "&", omittingEmptySubsequences: false).filter { pair in
            let name = pair.prefix { $0 != "=" }
            return name != "_HLS_msn" && name != "_HLS_part" && name != "_HLS_skip"
        }
        return kept.isEmpty ? String(path) : path + "?" + kept.joined(separator: "&")
    }

    /// `target` with these directives in place of any it had (after its other parameters).
    public func applied(to target: String) -> String {
        var pairs: [String] = []
        if let msn { pairs.append("_HLS_msn=\(msn)") }
        if let part { pairs.append("_HLS_part=\(part)") }
        if skip { pairs.append("_HLS_skip=YES") }
        let base = Self.removed(from: target)
        guard !pairs.isEmpty else { return base }
        return base + (base.contains("?") ? "&" : "?") + pairs.joined(separator: "&")
    }

    public static func parse(target: String) -> Result<DeliveryDirectives, Invalid> {
        // Every playlist request is asked (a blocking reload?): a byte search, not one of Characters.
        guard let question = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return .success(DeliveryDirectives()) }
        let query = target[target.index(after: question)...].prefix { $0 != "#" }
        var directives = DeliveryDirectives()
        for pair in query.split(separator: "&") {
            let name = pair.prefix { $0 != "=" }
            let value = String(pair.dropFirst(name.count + 1))
            switch name {
            case "_HLS_msn":
                guard let number = Int(value), number >= 0, value.allSatisfy(\.isNumber) else {
                    return .failure(Invalid(reason: "_HLS_msn must be a decimal integer, got \"\(value)\""))
                }
                directives.msn = number
            case "_HLS_part":
                guard let number = Int(value), number >= 0, value.allSatisfy(\.isNumber) else {
                    return .failure(Invalid(reason: "_HLS_part must be a decimal integer, got \"\(value)\""))
                }
                directives.part = number
            case "_HLS_skip":
                guard value == "YES" || value == "v2" else {
                    return .failure(Invalid(reason: "_HLS_skip must be YES or v2, got \"\(value)\""))
                }
                directives.skip = true
            default:
                continue
            }
        }
        if directives.part != nil, directives.msn == nil {
            return .failure(Invalid(reason: "_HLS_part without _HLS_msn (rfc8216bis 6.2.5.2)"))
        }
        return .success(directives)
    }
}
