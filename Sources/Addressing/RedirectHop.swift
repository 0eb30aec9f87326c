/// The `redirect` fault sends the client back to the same URL with a hop counter in the query;
/// the counter is removed before anything else looks at the request.
public enum RedirectHop {
    public static let parameter = "hlschaos-hop"
    /// Rules allow at most 100 hops, and a loop alternates between 0 and 1: a larger counter was
    /// not written by hlschaos.
    public static let range = 0...100

    public struct Invalid: Error, CustomStringConvertible {
        public var value: Substring
        public var description: String {
            "query parameter \(parameter)=\(value.prefix(40)) is not a hop counter hlschaos wrote (a whole number \(range.lowerBound)–\(range.upperBound), once); request the URL without it"
        }
    }

    /// The target without the counter, and the counter (0 when absent).
    public static func split(_ target: String) throws(Invalid) -> (target: String, hop: Int) {
        guard let question = target.utf8.firstIndex(of: UInt8(ascii: "?")),
              target.utf8[question...].firstRange(of: parameter.utf8) != nil
        else { return (target, 0) }
        var hop: Int?
        var kept: [Substring] = []
        for pair in target[target.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false) {
            guard pair.hasPrefix(parameter + "=") else {
                kept.append(pair)
                continue
            }
            let value = pair.dropFirst(parameter.count + 1)
            guard hop == nil, value.utf8.count <= 3, let number = Int(value), range.contains(number) else {
                throw Invalid(value: value)
            }
            hop = number
        }
        let path = String(target[..<question])
        return (kept.isEmpty ? path : path + "?" + kept.joined(separator: "&"), hop ?? 0)
    }

    public static func target(_ target: String, hop: Int) -> String {
        target + (target.contains("?") ? "&" : "?") + "\(parameter)=\(hop)"
    }
}
