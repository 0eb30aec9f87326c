/// The LL-HLS Delivery Directives of a playlist request (rfc8216bis §6.2.5): `_HLS_msn`,
/// `_HLS_part` and `_HLS_skip` from its query string. Other query parameters are ignored.
struct DeliveryDirectives: Equatable, Sendable {
    var msn: Int?
    var part: Int?
    /// `_HLS_skip=YES` or `v2` (no date ranges here, so both mean the same).
    var skip = false

    struct Invalid: Error, Equatable {
        var reason: String
    }

    static func parse(target: String) -> Result<DeliveryDirectives, Invalid> {
        guard let question = target.firstIndex(of: "?") else { return .success(DeliveryDirectives()) }
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
