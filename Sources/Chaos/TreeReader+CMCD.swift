import CMCD
import JSON
import SpecReading

/// `match.cmcd`: `{"bl": {"below": "2s"}, "su": true, "sta": "rebuffering", …}`.
extension TreeReader {
    mutating func cmcdCondition(_ value: JSONValue, _ path: String) -> CMCDCondition? {
        let start = problems.count
        guard let members = object(value, path, allowed: RuleKeys.cmcdMatch) else { return nil }
        guard !members.isEmpty else {
            // An unknown key was reported already: that says it.
            if problems.count == start { report(path, "empty cmcd condition (give \(RuleKeys.cmcdMatch.map { "\"\($0)\"" }.joined(separator: ", ")))") }
            return nil
        }
        let before = problems.count
        var condition = CMCDCondition()
        condition.present = members["present"].flatMap { bool($0.0, $0.1) }
        if let (value, keyPath) = members["bl"], let bounds = cmcdBounds(value, keyPath, "bl", example: #"{"below": "2s"}"#) {
            condition.bufferBelow = bounds.below.flatMap { duration($0.0, $0.1) }
            condition.bufferAbove = bounds.above.flatMap { duration($0.0, $0.1) }
            if let low = condition.bufferAbove, let high = condition.bufferBelow, low >= high {
                report(keyPath, "above (\(ValueText.format(low))) must be less than below (\(ValueText.format(high))): no buffer length is both")
            }
        }
        if let (value, keyPath) = members["mtp"], let bounds = cmcdBounds(value, keyPath, "mtp", example: #"{"below": "2Mbps"}"#) {
            condition.throughputBelow = bounds.below.flatMap { bytesPerSecond($0.0, $0.1) }
            condition.throughputAbove = bounds.above.flatMap { bytesPerSecond($0.0, $0.1) }
            if let low = condition.throughputAbove, let high = condition.throughputBelow, low >= high {
                report(keyPath, "above must be less than below: no throughput is both")
            }
        }
        condition.startup = members["su"].flatMap { bool($0.0, $0.1) }
        condition.starvation = members["bs"].flatMap { bool($0.0, $0.1) }
        if let (value, keyPath) = members["sta"] {
            let names = CMCDPlayerState.allCases.map { "\($0)" }
            condition.states = oneOrMany(value, keyPath) { reader, value, path -> CMCDPlayerState? in
                if case .string(let text) = value, let state = CMCDCondition.stateNames[text] { return state }
                return reader.keyword(value, path, "player state (CMCD sta)", in: names).flatMap { CMCDCondition.stateNames[$0] }
            }.map(Set.init)
        }
        if let (value, keyPath) = members["ot"] {
            condition.objectTypes = oneOrMany(value, keyPath) { reader, value, path in
                reader.keyword(value, path, "object type (CMCD ot)", in: CMCDObjectType.allCases.map(\.rawValue)).flatMap(CMCDObjectType.init(rawValue:))
            }.map(Set.init)
        }
        if condition.present == false, members.count > 1 {
            report(path, "\"present\": false selects requests without CMCD, which have no CMCD values to compare: drop the other keys or \"present\"")
        }
        return problems.count == before ? condition : nil
    }

    /// `{"below": X, "above": Y}`, at least one.
    private mutating func cmcdBounds(_ value: JSONValue, _ path: String, _ key: String, example: String)
        -> (below: (JSONValue, String)?, above: (JSONValue, String)?)? {
        guard case .object = value else {
            report(path, "\"\(key)\" takes \(example) (or \"above\", or both), got \(value.typeName)")
            return nil
        }
        let start = problems.count
        guard let members = object(value, path, allowed: RuleKeys.cmcdBounds) else { return nil }
        guard !members.isEmpty else {
            if problems.count == start { report(path, "give \"below\", \"above\" or both, e.g. \(example)") }
            return nil
        }
        return (members["below"], members["above"])
    }
}
