/// The `redirect` fault sends the client back to the same URL with a hop counter in the query;
/// the counter is removed before anything else looks at the request.
enum RedirectHop {
    static let parameter = "hlschaos-hop"

    /// The target without the counter, and the counter (0 when absent).
    static func split(_ target: String) -> (target: String, hop: Int) {
        guard let question = target.utf8.firstIndex(of: UInt8(ascii: "?")),
              target.utf8[question...].firstRange(of: parameter.utf8) != nil
        else { return (target, 0) }
        var hop = 0
        let kept = target[target.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false)
            .filter { pair in
                guard pair.hasPrefix(parameter + "=") else { return true }
                hop = Int(pair.dropFirst(parameter.count + 1)) ?? 0
                return false
            }
        let path = String(target[..<question])
        return (kept.isEmpty ? path : path + "?" + kept.joined(separator: "&"), hop)
    }

    static func target(_ target: String, hop: Int) -> String {
        target + (target.contains("?") ? "&" : "?") + "\(parameter)=\(hop)"
    }
}
