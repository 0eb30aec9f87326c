import Foundation
import JSON
import SpecReading

/// `"expect": [...]`: the expectations of a scenario, checked the same way as its rules.
extension TreeReader {
    mutating func expectations(_ value: JSONValue, _ path: String) -> [Expectation]? {
        guard case .array(let elements) = value else {
            report(path, "expected a list of expectations, got \(value.typeName)")
            return nil
        }
        var result: [Expectation] = []
        var failed = false
        for (offset, element) in elements.enumerated() {
            if let expectation = expectation(element, "\(path)[\(offset)]") { result.append(expectation) } else { failed = true }
        }
        return failed ? nil : result
    }

    /// One item: exactly one check key, plus `players` and `note`.
    mutating func expectation(_ value: JSONValue, _ path: String) -> Expectation? {
        let start = problems.count
        guard let members = object(value, path, allowed: RuleKeys.expectation) else { return nil }
        let check = oneCheck(members, path, unknownKeysReported: problems.count > start)
        var players: [String] = []
        if let (value, playersPath) = members["players"] {
            players = playerNames(value, playersPath) ?? []
        }
        let note = members["note"].flatMap { string($0.0, $0.1) }
        guard let check, problems.count == start else { return nil }
        return Expectation(check, players: players, note: note)
    }

    /// The check among `members`; reports none or several. When an unknown key was already reported
    /// (a misspelt check, most likely), a missing check is not reported again.
    private mutating func oneCheck(_ members: [String: (JSONValue, String)], _ path: String,
                                   unknownKeysReported: Bool) -> Expectation.Check? {
        let start = problems.count
        let keys = RuleKeys.checks.filter { members[$0] != nil }
        if keys.isEmpty {
            if !unknownKeysReported {
                report(path, "no check given (use one of \(RuleKeys.checks.joined(separator: ", ")))")
            }
            return nil
        }
        if keys.count > 1 {
            report(path, "\(quotedList(keys)) cannot be combined (one check per expectation; use \"anyOf\" for alternatives, or one item per check)")
        }
        var result: Expectation.Check?
        for key in keys {
            // Every check is read so that its own problems are reported too.
            guard let (value, keyPath) = members[key], let check = check(key, value, keyPath) else { continue }
            if result == nil { result = check }
        }
        return problems.count == start ? result : nil
    }

    private mutating func check(_ key: String, _ value: JSONValue, _ path: String) -> Expectation.Check? {
        switch key {
        case "switchedDown", "switchedUp": return switchTiming(value, path, key)
        case "failedOver": return timing(value, path, key).map { .failedOver(within: $0) }
        case "stopped": return timing(value, path, key).map { .stopped(within: $0) }
        case "retried": return bounds(value, path, key).map { .retried(atLeast: $0.0, atMost: $0.1) }
        case "skipped": return bounds(value, path, key).map { .skipped(atLeast: $0.0, atMost: $0.1) }
        case "steeringReloads": return bounds(value, path, key).map { .steeringReloads(atLeast: $0.0, atMost: $0.1) }
        case "stalls": return bounds(value, path, key).map { .stalls(atLeast: $0.0, atMost: $0.1) }
        case "switches": return switches(value, path)
        case "utilisation": return utilisation(value, path)
        case "overshoot": return overshoot(value, path)
        case "movedPathway": return movedPathway(value, path)
        case "fetchedToTheEnd":
            guard case .bool(true) = value else {
                report(path, "\"fetchedToTheEnd\" takes true, got \(value == .bool(false) ? "false (remove the expectation instead)" : value.typeName)")
                return nil
            }
            return .fetchedToTheEnd
        case "reloadCadence":
            return keyword(value, path, "reload cadence", in: RuleKeys.reloadPaces)
                .flatMap(Expectation.ReloadPace.init).map(Expectation.Check.reloadCadence)
        case "neverRequested":
            return keyword(value, path, "request class", in: RuleKeys.forbidden)
                .flatMap(Expectation.Forbidden.init).map(Expectation.Check.neverRequested)
        case "outcome":
            return oneOrMany(value, path) { $0.keyword($1, $2, "outcome", in: RuleKeys.outcomes) }.map(Expectation.Check.outcome)
        case "playerError":
            return playerError(value, path)
        case "log", "logNot":
            guard let pattern = regex(value, path) else { return nil }
            return key == "log" ? .log(pattern) : .logNot(pattern)
        case "bufferNeverBelow", "startupWithin":
            guard case .string = value else {
                report(path, "\"\(key)\" takes a duration such as \"2s\", got \(value.typeName)")
                return nil
            }
            return duration(value, path).map { key == "bufferNeverBelow" ? .bufferNeverBelow($0) : .startupWithin($0) }
        case "cmcdValid":
            guard case .bool(true) = value else {
                report(path, "\"cmcdValid\" takes true, got \(value == .bool(false) ? "false (remove the expectation instead)" : value.typeName)")
                return nil
            }
            return .cmcdValid
        case "anyOf":
            return anyOf(value, path)
        case "not":
            guard case .object = value else {
                report(path, "\"not\" takes one check, e.g. {\"fetchedToTheEnd\": true}, got \(value.typeName)")
                return nil
            }
            return innerCheck(value, path).map(Expectation.Check.not)
        default:
            return nil
        }
    }

    /// `true` (any time) or `{"within": "10s"}`.
    private mutating func timing(_ value: JSONValue, _ path: String, _ key: String) -> Duration?? {
        switch value {
        case .bool(true):
            return .some(nil)
        case .object:
            guard let members = object(value, path, allowed: RuleKeys.timing) else { return nil }
            guard let (within, withinPath) = members["within"] else { return .some(nil) }
            return duration(within, withinPath).map { .some($0) }
        default:
            let got = value == .bool(false) ? "false (remove the expectation instead)" : value.typeName
            report(path, "\"\(key)\" takes {\"within\": \"10s\"}, {} or true, got \(got)")
            return nil
        }
    }

    /// `true`, `{}`, or `{"to": "cdn-b", "within": "20s"}` (either or both).
    private mutating func movedPathway(_ value: JSONValue, _ path: String) -> Expectation.Check? {
        if case .bool(true) = value { return .movedPathway(to: nil, within: nil) }
        guard case .object = value else {
            let got = value == .bool(false) ? "false (remove the expectation instead)" : value.typeName
            report(path, "\"movedPathway\" takes {\"to\": \"PATHWAY-ID\", \"within\": \"20s\"}, {} or true, got \(got)")
            return nil
        }
        let start = problems.count
        guard let members = object(value, path, allowed: RuleKeys.movedPathway) else { return nil }
        let to = members["to"].flatMap { pathwayID($0.0, $0.1) }
        let within = members["within"].flatMap { duration($0.0, $0.1) }
        return problems.count == start ? .movedPathway(to: to, within: within) : nil
    }

    /// `{"atLeast": N, "atMost": M}`, at least one given.
    private mutating func bounds(_ value: JSONValue, _ path: String, _ key: String) -> (Int?, Int?)? {
        guard case .object = value else {
            report(path, "\"\(key)\" takes {\"atLeast\": N, \"atMost\": M}, got \(value.typeName)")
            return nil
        }
        let start = problems.count
        guard let members = object(value, path, allowed: RuleKeys.bounds) else { return nil }
        let low = members["atLeast"].flatMap { integer($0.0, $0.1, "atLeast", in: 0...Int.max) }
        let high = members["atMost"].flatMap { integer($0.0, $0.1, "atMost", in: 0...Int.max) }
        // A misspelt bound was reported as an unknown key: that says it.
        guard problems.count == start else { return nil }
        if members.isEmpty {
            report(path, "give \"atLeast\", \"atMost\" or both")
            return nil
        }
        if let low, let high, low > high {
            report(path, "atLeast (\(low)) is greater than atMost (\(high))")
            return nil
        }
        return (low, high)
    }

    /// `"fragLoadError"`, `{"kind": "…", "code": 503, "fatal": true}` or `true` (any error).
    private mutating func playerError(_ value: JSONValue, _ path: String) -> Expectation.Check? {
        switch value {
        case .string:
            return string(value, path).map { .playerError(kind: $0, code: nil, fatal: nil) }
        case .bool(true):
            return .playerError(kind: nil, code: nil, fatal: nil)
        case .object:
            let before = problems.count
            guard let members = object(value, path, allowed: RuleKeys.playerError) else { return nil }
            guard problems.count == before else { return nil }
            guard !members.isEmpty else {
                report(path, "give \"kind\", \"code\" or \"fatal\" (or use true for any error)")
                return nil
            }
            let kind = members["kind"].flatMap { string($0.0, $0.1) }
            let code = members["code"].flatMap { integer($0.0, $0.1, "code", in: Int.min...Int.max) }
            let fatal = members["fatal"].flatMap { bool($0.0, $0.1) }
            guard problems.count == before else { return nil }
            return .playerError(kind: kind, code: code, fatal: fatal)
        default:
            report(path, "\"playerError\" takes an error kind (\"fragLoadError\"), {\"kind\", \"code\", \"fatal\"} or true, got \(value.typeName)")
            return nil
        }
    }

    private mutating func regex(_ value: JSONValue, _ path: String) -> String? {
        guard let pattern = string(value, path) else { return nil }
        guard (try? NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines])) != nil else {
            report(path, "invalid regular expression \"\(pattern)\"")
            return nil
        }
        return pattern
    }

    /// A non-empty list of objects of one check each, without `players` or `note`.
    private mutating func anyOf(_ value: JSONValue, _ path: String) -> Expectation.Check? {
        guard case .array(let elements) = value else {
            report(path, "\"anyOf\" takes a list of checks, got \(value.typeName)")
            return nil
        }
        guard !elements.isEmpty else {
            report(path, "the list is empty")
            return nil
        }
        let before = problems.count
        var checks: [Expectation.Check] = []
        for (offset, element) in elements.enumerated() {
            if let check = innerCheck(element, "\(path)[\(offset)]") { checks.append(check) }
        }
        return problems.count == before ? .anyOf(checks) : nil
    }

    /// A one-check object inside `anyOf` or `not`: no `players` or `note` of its own.
    private mutating func innerCheck(_ value: JSONValue, _ path: String) -> Expectation.Check? {
        let start = problems.count
        guard let members = object(value, path, allowed: RuleKeys.expectation) else { return nil }
        let unknownKeysReported = problems.count > start
        for key in ["players", "note"] where members[key] != nil {
            report(Self.child(path, key), "\"\(key)\" applies to the whole expectation: put it on the item itself")
        }
        let check = oneCheck(members, path, unknownKeysReported: unknownKeysReported)
        return problems.count == start ? check : nil
    }

    /// A player name or a non-empty list of them, each known and given once.
    private mutating func playerNames(_ value: JSONValue, _ path: String) -> [String]? {
        guard let names = oneOrMany(value, path, { $0.keyword($1, $2, "player", in: RuleKeys.playerNames) }) else { return nil }
        var seen = Set<String>()
        for (offset, name) in names.enumerated() where !seen.insert(name).inserted {
            report("\(path)[\(offset)]", "duplicate player \"\(name)\"")
            return nil
        }
        return names
    }
}
