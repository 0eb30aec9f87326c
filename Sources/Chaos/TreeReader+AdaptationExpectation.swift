import Foundation
import JSON
import SpecReading

/// The expectations of a player's adaptation to the session's link: `switchedDown`/`switchedUp`
/// timed from the link, `switches`, `stalls` (read with the other bounds), `utilisation`, `overshoot`.
extension TreeReader {
    /// More than one switch a second is no bound a player can be held to.
    static let maximumSwitchesPerMinute = 60.0

    /// `true`, `{}`, `{"within": "10s"}`, with `"after"`: `"firstFault"` (the default) or the link's
    /// fall (`switchedDown`: `"linkBelowVariant"`) or recovery (`switchedUp`: `"linkRecovered"`).
    mutating func switchTiming(_ value: JSONValue, _ path: String, _ key: String) -> Expectation.Check? {
        let down = key == "switchedDown"
        let anchors = down ? RuleKeys.switchedDownAnchors : RuleKeys.switchedUpAnchors
        var within: Duration?
        var onLink = false
        switch value {
        case .bool(true):
            break
        case .object:
            let start = problems.count
            guard let members = object(value, path, allowed: RuleKeys.switchTiming) else { return nil }
            if let (value, withinPath) = members["within"] { within = duration(value, withinPath) }
            if let (value, afterPath) = members["after"] { onLink = anchor(value, afterPath, key, anchors) == anchors[1] }
            guard problems.count == start else { return nil }
        default:
            let got = value == .bool(false) ? "false (remove the expectation instead)" : value.typeName
            report(path, "\"\(key)\" takes {\"within\": \"10s\"}, {\"within\": \"10s\", \"after\": \"\(anchors[1])\"}, {} or true, got \(got)")
            return nil
        }
        switch (down, onLink) {
        case (true, false): return .switchedDown(within: within)
        case (true, true): return .switchedDownOnLink(within: within)
        case (false, false): return .switchedUp(within: within)
        case (false, true): return .switchedUpOnLink(within: within)
        }
    }

    /// One of `anchors`; the other switch's link anchor gets a message of its own.
    private mutating func anchor(_ value: JSONValue, _ path: String, _ key: String, _ anchors: [String]) -> String? {
        let crossed = key == "switchedDown" ? ("linkRecovered", "an up-switch") : ("linkBelowVariant", "a down-switch")
        if case .string(crossed.0) = value {
            report(path, "\"\(crossed.0)\" times \(crossed.1); \"\(key)\" is timed from \"\(anchors[0])\" or \"\(anchors[1])\"")
            return nil
        }
        return keyword(value, path, "anchor", in: anchors)
    }

    /// `{"atMost": N}` (a count over the run) or `{"atMost": R, "perMinute": true}` (a rate: a
    /// number, whole or not); `atLeast` too.
    mutating func switches(_ value: JSONValue, _ path: String) -> Expectation.Check? {
        guard case .object = value else {
            report(path, "\"switches\" takes {\"atMost\": N} or {\"atMost\": N, \"perMinute\": true}, got \(value.typeName)")
            return nil
        }
        let start = problems.count
        guard let members = object(value, path, allowed: RuleKeys.switches) else { return nil }
        let perMinute = members["perMinute"].flatMap { bool($0.0, $0.1) } ?? false
        func bound(_ name: String) -> Double? {
            guard let (value, boundPath) = members[name] else { return nil }
            return perMinute ? rate(value, boundPath, name) : count(value, boundPath, name)
        }
        let low = bound("atLeast"), high = bound("atMost")
        guard problems.count == start else { return nil }
        guard low != nil || high != nil else {
            report(path, "give \"atLeast\", \"atMost\" or both")
            return nil
        }
        if let low, let high, low > high {
            report(path, "atLeast (\(Expectation.Check.number(low))) is greater than atMost (\(Expectation.Check.number(high)))")
            return nil
        }
        return .switches(atLeast: low, atMost: high, perMinute: perMinute)
    }

    /// A whole number of switches; a fraction is a rate, which needs `perMinute`.
    private mutating func count(_ value: JSONValue, _ path: String, _ name: String) -> Double? {
        if case .number(let number, let text) = value, !JSONValue.isIntegerText(text), number >= 0 {
            report(path, "\(name) counts switches over the run: a whole number, got \(text) (for switches a minute add \"perMinute\": true)")
            return nil
        }
        return integer(value, path, name, in: 0...Int.max).map(Double.init)
    }

    /// Switches a minute: 0 to `maximumSwitchesPerMinute`.
    private mutating func rate(_ value: JSONValue, _ path: String, _ name: String) -> Double? {
        guard case .number(let number, let text) = value else {
            report(path, "expected a number of switches a minute, got \(value.typeName)")
            return nil
        }
        guard (0...Self.maximumSwitchesPerMinute).contains(number) else {
            report(path, "\(name) must be between 0 and \(Int(Self.maximumSwitchesPerMinute)) switches a minute, got \(text)")
            return nil
        }
        return number
    }

    /// `{"atLeast": "70%"}`, `{"atMost": "95%"}` or both: percentages written as strings.
    mutating func utilisation(_ value: JSONValue, _ path: String) -> Expectation.Check? {
        guard case .object = value else {
            report(path, "\"utilisation\" takes {\"atLeast\": \"70%\"}, {\"atMost\": \"95%\"} or both, got \(value.typeName)")
            return nil
        }
        let start = problems.count
        guard let members = object(value, path, allowed: RuleKeys.utilisation) else { return nil }
        let low = members["atLeast"].flatMap { percentage($0.0, $0.1, "atLeast") }
        let high = members["atMost"].flatMap { percentage($0.0, $0.1, "atMost") }
        guard problems.count == start else { return nil }
        guard low != nil || high != nil else {
            report(path, "give \"atLeast\", \"atMost\" or both")
            return nil
        }
        if let low, let high, low > high {
            report(path, "atLeast (\(Expectation.Check.number(low * 100))%) is greater than atMost (\(Expectation.Check.number(high * 100))%)")
            return nil
        }
        return .utilisation(atLeast: low, atMost: high)
    }

    /// "70%", "72.5%" (0% to 100%) as a fraction. A bare number is refused: 0.7 and 70 would both
    /// be read one way or the other by someone.
    private mutating func percentage(_ value: JSONValue, _ path: String, _ name: String) -> Double? {
        switch value {
        case .string(let text):
            guard let percent = ValueText.percentage(text[...]) else {
                report(path, "invalid percentage \"\(text)\" (write a number and %: \"70%\", \"72.5%\")")
                return nil
            }
            guard percent <= 100 else {
                report(path, "\(name) must be between 0% and 100%, got \"\(text)\"")
                return nil
            }
            return percent / 100
        case .number(let number, let text):
            let suggestion = Expectation.Check.number(number <= 1 ? number * 100 : number)
            report(path, "\(name) is a percentage written as a string: write \"\(suggestion)%\", got \(text)")
            return nil
        default:
            report(path, "expected a percentage such as \"70%\", got \(value.typeName)")
            return nil
        }
    }

    /// `{"atMost": "5s"}`.
    mutating func overshoot(_ value: JSONValue, _ path: String) -> Expectation.Check? {
        guard case .object = value else {
            report(path, "\"overshoot\" takes {\"atMost\": \"5s\"}, got \(value.typeName)")
            return nil
        }
        let start = problems.count
        guard let members = object(value, path, allowed: RuleKeys.overshoot) else { return nil }
        guard let (atMost, atMostPath) = members["atMost"] else {
            if problems.count == start { report(path, "give \"atMost\" (a duration such as \"5s\")") }
            return nil
        }
        return duration(atMost, atMostPath).map { .overshoot(atMost: $0) }
    }
}
