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
        let (kept, values) = OwnQueryParameter.remove(parameter, from: target)
        guard let value = values.first else { return (target, 0) }
        guard values.count == 1, value.utf8.count <= 3, let number = Int(value), range.contains(number) else {
            throw Invalid(value: value)
        }
        return (kept, number)
    }

    public static func target(_ target: String, hop: Int) -> String {
        target + (target.contains("?") ? "&" : "?") + "\(parameter)=\(hop)"
    }
}
